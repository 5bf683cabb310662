// Production refuses the devnet's keys (they come from the public test mnemonic), so a test that runs the service
// in production mode on the devnet gives it keys of its own: fresh executors with gas, and a fresh paymaster signer
// set on the devnet's paymaster for as long as the test runs (the owner's key sets it back afterwards, since the
// other test files sign with the devnet's signer).
import { type Hex, parseAbi, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf } from "./chain";

const paymasterAbi = parseAbi(["function setVerifyingSigner(address signer)"]);

export type OperatorKeys = { executorKeys: Hex[]; paymasterSignerKey: Hex };

async function setPaymasterSigner(network: NetworkName, signer: Hex) {
  const c = chainOf(network);
  const hash = await c.walletFor(devnetKeys.owner).writeContract({
    address: c.info.paymaster,
    abi: paymasterAbi,
    functionName: "setVerifyingSigner",
    args: [privateKeyToAccount(signer).address],
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** Runs `use` with fresh operator keys on each network, then gives the paymasters their devnet signer back. */
export async function withOperatorKeys<T>(
  networks: NetworkName[],
  use: (keys: Record<NetworkName, OperatorKeys>) => Promise<T>,
): Promise<T> {
  const keys = {} as Record<NetworkName, OperatorKeys>;
  try {
    for (const network of networks) {
      const executorKeys = [generatePrivateKey(), generatePrivateKey()];
      for (const key of executorKeys) {
        await chainOf(network).test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("10") });
      }
      keys[network] = { executorKeys, paymasterSignerKey: generatePrivateKey() };
      await setPaymasterSigner(network, keys[network].paymasterSignerKey);
    }
    return await use(keys);
  } finally {
    for (const network of Object.keys(keys) as NetworkName[]) {
      await setPaymasterSigner(network, devnetKeys.paymasterSigner);
    }
  }
}
