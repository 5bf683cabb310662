import { type Hex, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/**
 * Every devnet key comes from the well-known anvil test mnemonic, so addresses, constructor
 * arguments and therefore CREATE2 addresses are the same on every run. Never use these keys
 * on a real network: the mnemonic is public.
 */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";

function keyAt(index: number): Hex {
  const key = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no private key at index ${index}`);
  return toHex(key);
}

const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => keyAt(start + i));

export const devnetKeys = {
  /** Deploys and owns the contracts (relayer whitelist, paymaster). */
  owner: keyAt(0),
  bundlerExecutor: keyAt(1),
  bundlerUtility: keyAt(2),
  paymasterSigner: keyAt(3),
  feeRecipient: keyAt(4),
  /** The service's executor pool. */
  executors: range(5, 8),
  /** Funded test payers written to the manifest. */
  payers: range(13, 10),
  /** Deploys and seeds the devnet DEX (scripts/devnet/dex.ts) beside the owner's deployments. */
  dexDeployer: keyAt(23),
} as const;

/** The documented development admin key of the local devnet (production refuses to start without its own). */
export { DEVNET_ADMIN_API_KEY } from "../../src/config/load";
