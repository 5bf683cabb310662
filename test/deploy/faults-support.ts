// What the deployment fault tests share (faults.test.ts, faults-restarts.test.ts): the base devnet, the records a
// service keeps of a deployment, and the checks that a batch was charged once.
import { expect } from "bun:test";
import type { Address, Hex } from "viem";
import { chainOf, tokenBalance } from "../support/chain";
import {
  entryPointNonce as entryPointNonceOn,
  inMempool as inMempoolOn,
  rowsOf,
  type Service,
  userOpSubmitted as userOpSubmittedOn,
  walletDeployment as walletDeploymentOn,
} from "./support";

export const network = "base" as const;
export const c = chainOf(network);
export const unit = 10n ** BigInt(c.token.decimals);

export const settlementOf = (service: Service, payer: Address) =>
  service.db.$client
    .query<{ status: string; tx_hash: Hex }, [string]>("SELECT status, tx_hash FROM eoa_settlements WHERE payer = ?")
    .get(payer.toLowerCase());

export const inMempool = (hash: Hex | null | undefined) => inMempoolOn(network, hash);
export const feeBroadcast = (service: Service, payer: Address) => async () => {
  const record = settlementOf(service, payer);
  return record?.status === "sent" && (await inMempool(record.tx_hash));
};
export const stepBroadcast = (service: Service, payer: Address, phase: "deployment" | "funding") => async () => {
  const rows = rowsOf(service, payer).filter((row) => (phase === "deployment" ? true : row.fundingStatus === "sent"));
  const hashes = rows.map((row) =>
    phase === "deployment" ? (row.deploymentStatus === "sent" ? row.deploymentTxHash : null) : row.fundingTxHash,
  );
  return hashes.length > 0 && (await Promise.all(hashes.map((hash) => inMempool(hash as Hex | null)))).every(Boolean);
};

/** Mines the transactions waiting in the mempool (automine is off while a fault is staged). */
export const mine = () => c.test.mine({ blocks: 1 });

export const walletDeployment = (service: Service, fundingAmounts: bigint[]) =>
  walletDeploymentOn(service, network, fundingAmounts);
export const entryPointNonce = (wallet: Address) => entryPointNonceOn(network, wallet);
export const userOpSubmitted = (hash: Hex) => userOpSubmittedOn(network, hash);

export type WalletFlow = Awaited<ReturnType<typeof walletDeployment>>;

/** The batch is complete and the paying wallet was charged once: the fee and each funding, by one UserOp. */
export async function expectChargedOnce(
  flow: WalletFlow,
  funding: bigint[],
  before: { recipient: bigint; nonce: bigint },
): Promise<void> {
  expect(await entryPointNonce(flow.payer)).toBe(before.nonce + 1n);
  expect(await tokenBalance(network, c.token.address, flow.payer)).toBe(100n * unit - flow.total);
  expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(before.recipient + flow.fee);
  for (const [i, wallet] of flow.wallets.entries()) {
    expect(((await c.public.getCode({ address: wallet.address })) ?? "0x").length).toBeGreaterThan(2);
    expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(funding[i]!);
  }
}

/** Before a settle: what the fee recipient holds and the paying wallet's EntryPoint nonce. */
export const balancesBefore = async (flow: WalletFlow) => ({
  recipient: await tokenBalance(network, c.token.address, c.info.feeRecipient),
  nonce: await entryPointNonce(flow.payer),
});
