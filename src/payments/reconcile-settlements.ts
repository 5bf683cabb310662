import type { Address, Hex } from "viem";
import type { Networks } from "../chain/networks";

import { type Logger, shortReason } from "../logger";
import type { RelayerPort } from "./relayer-port";
import { settlementReceipt } from "./settlement-receipt";
import type { SettlementStore } from "./settlement-store";

/**
 * After a restart, settles the fate of records left pending or sent by the previous process:
 * - pending (crashed before signing): released if the nonce is still unused on-chain; else settled by
 *   whoever submitted it (success, with that transaction) or canceled (failed);
 * - sent: the stored raw transaction is re-broadcast and its receipt awaited.
 */
export async function reconcileSettlements(deps: {
  store: SettlementStore;
  networks: Networks;
  relayerFor(network: ReturnType<Networks["get"]>): RelayerPort;
  logger: Logger;
}): Promise<void> {
  for (const record of deps.store.unfinished()) {
    if (!deps.networks.enabled.includes(record.network as never)) continue;
    const network = deps.networks.get(record.network);
    try {
      if (record.status === "pending") {
        const relayer = deps.relayerFor(network);
        const used = await relayer.authorizationState(record.payer as Address, record.nonce as Hex);
        if (!used) {
          deps.store.release(record.id);
          continue;
        }
        // Someone else submitted it (the payment happened) or the payer canceled it.
        const latest = await network.client.getBlockNumber();
        const use = await relayer.findAuthorizationUse(record.payer as Address, record.nonce as Hex, latest);
        deps.store.markOutcome(
          record.id,
          use
            ? { status: "success", txHash: use.transactionHash, blockNumber: Number(use.blockNumber) }
            : { status: "failed", error: "authorization canceled" },
        );
        continue;
      }
      const receipt = await settlementReceipt(network, record, network.config.receiptTimeoutMs);
      if (receipt) {
        deps.store.markOutcome(record.id, {
          status: receipt.status === "success" ? "success" : "reverted",
          txHash: receipt.transactionHash,
          blockNumber: Number(receipt.blockNumber),
        });
      }
      deps.logger.info({ event: "settlement_reconciled", id: record.id, status: receipt?.status ?? "still_pending" });
    } catch (error) {
      deps.logger.warn({ event: "settlement_reconcile_failed", id: record.id, reason: shortReason(error) });
    }
  }
}
