import { describe, expect, test } from "bun:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import { fieldsWithPublicKeys, isPublicTestAddress, publicTestKeys } from "./public-keys";

// anvil's account 0 key, as every tutorial prints it.
const ANVIL_ZERO = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

describe("public test keys", () => {
  test("the first 20 accounts of the test mnemonic and every devnet key are known; a fresh key is not", () => {
    const known = publicTestKeys();
    expect(known.size).toBe(24);
    expect(known.has(ANVIL_ZERO)).toBe(true);
    for (const key of [
      devnetKeys.owner,
      devnetKeys.paymasterSigner,
      devnetKeys.dexDeployer,
      ...devnetKeys.executors,
      ...devnetKeys.payers,
    ]) {
      expect(known.has(key.toLowerCase())).toBe(true);
    }
    expect(known.has(generatePrivateKey())).toBe(false);
  });

  test("names the fields holding a public key, in any case, and never returns a key", () => {
    const fields = fieldsWithPublicKeys([
      { field: "networks.bsc.executorKeys[0]", key: generatePrivateKey() },
      { field: "networks.bsc.executorKeys[1]", key: ANVIL_ZERO.toUpperCase().replace("0X", "0x") as `0x${string}` },
      { field: "networks.bsc.paymasterSignerKey", key: devnetKeys.paymasterSigner },
    ]);
    expect(fields).toEqual(["networks.bsc.executorKeys[1]", "networks.bsc.paymasterSignerKey"]);
  });

  test("knows the public keys' accounts by address, in any case (a signer given by address)", () => {
    const anvilZero = privateKeyToAccount(ANVIL_ZERO).address;
    expect(isPublicTestAddress(anvilZero)).toBe(true);
    expect(isPublicTestAddress(anvilZero.toLowerCase() as `0x${string}`)).toBe(true);
    expect(isPublicTestAddress(privateKeyToAccount(devnetKeys.paymasterSigner).address)).toBe(true);
    expect(isPublicTestAddress(privateKeyToAccount(generatePrivateKey()).address)).toBe(false);
  });
});
