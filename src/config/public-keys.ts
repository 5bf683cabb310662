import { type Address, type Hex, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";

/** The mnemonic every Ethereum test tool (anvil, Hardhat, Foundry) funds by default: its keys are public. */
export const PUBLIC_TEST_MNEMONIC = "test test test test test test test test test test test junk";

/**
 * Accounts of that mnemonic a production key must not be: the first 20 (what the tools fund) and the local devnet's
 * own keys, which go up to index 23 (scripts/devnet/keys.ts). Anyone can sign with them, so an executor or a
 * paymaster signer holding one is anyone's.
 */
const PUBLIC_ACCOUNT_COUNT = 24;

let publicKeys: Set<string> | undefined;

/** The public keys, lowercase hex; derived once (about a quarter of a second), only when production asks. */
export function publicTestKeys(): ReadonlySet<string> {
  if (!publicKeys) {
    publicKeys = new Set();
    for (let index = 0; index < PUBLIC_ACCOUNT_COUNT; index++) {
      const key = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
      if (key) publicKeys.add(toHex(key).toLowerCase());
    }
  }
  return publicKeys;
}

/** The config fields (never the keys) whose private key is a public test key. */
export function fieldsWithPublicKeys(keys: { field: string; key: Hex }[]): string[] {
  const known = publicTestKeys();
  return keys.filter(({ key }) => known.has(key.toLowerCase())).map(({ field }) => field);
}

let publicAddresses: Set<string> | undefined;

/** True when `address` is one of the public test keys' accounts (a signer given by address, not by key). */
export function isPublicTestAddress(address: Address): boolean {
  publicAddresses ??= new Set(
    [...publicTestKeys()].map((key) => privateKeyToAccount(key as Hex).address.toLowerCase()),
  );
  return publicAddresses.has(address.toLowerCase());
}
