import type { PublicClient } from "viem";
import { type Logger, shortReason } from "../logger";
import { isExecutionReverted, isInvalidParams, SimulationRevertedError, toReadError } from "./errors";
import type { createFeeOracle } from "./gas-price";
import type { ExecutorKey } from "./key-pool";
import type { createReceiptPoller } from "./receipt-poller";
import type { Fees, TransactionRequest } from "./types";

type SimulatorDeps = {
  client: PublicClient;
  fees: Pick<ReturnType<typeof createFeeOracle>, "latestHead">;
  poller: Pick<ReturnType<typeof createReceiptPoller>, "latestBlock">;
  logger: Logger;
};

/** The executor's simulation of a transaction before it is signed (one per executor: it remembers a node's refusal). */
export function createTransactionSimulator({ client, fees, poller, logger }: SimulatorDeps) {
  /**
   * The exact transaction as an eth_call: same sender, gas limit and fees, so a payer contract that answers
   * differently when gas is short or tx.gasprice is zero is seen as it will be on-chain.
   */
  async function simulate(key: ExecutorKey, request: TransactionRequest, fee: Fees): Promise<void> {
    const run = (block: ReturnType<typeof simulationBlock>) =>
      client.call({
        account: key.account.address,
        to: request.to,
        data: request.data,
        value: request.value ?? 0n,
        gas: request.gas,
        ...block,
        ...fee,
      });
    try {
      const block = simulationBlock();
      try {
        await run(block);
      } catch (error) {
        if (!("blockOverrides" in block) || !isInvalidParams(error)) throw error;
        // A node that refuses eth_call's block override parameter: the pending block from now on.
        blockOverridesRefused = true;
        logger.warn({ event: "simulation_block_override_refused", reason: shortReason(error) });
        await run({ blockTag: "pending" });
      }
    } catch (error) {
      if (isExecutionReverted(error)) throw new SimulationRevertedError(shortReason(error), { cause: error });
      throw toReadError(error);
    }
  }

  /**
   * On the latest block, run as the next one: its time max(now, latest + 1 s), its number latest + 1 (an eth_call block
   * override). The latest block of an idle chain can be minutes old, and an authorization valid from now would look
   * not yet valid there. The "pending" block would give the time and the mempool too, but a node like anvil builds
   * it by executing its whole pool for every call, which under a burst costs more than the calls themselves.
   * Without a known head yet (no fee read so far), or on a node that refuses the override (invalid params), the
   * pending block. What the pending block saw and this does not: the mempool. A payment whose funds an earlier
   * transaction still in the pool spends passes here and reverts on-chain, which costs the executor its gas; the same
   * payments arriving in one tick passed the pending block too, so the cost was already bounded by the deny counter.
   */
  let blockOverridesRefused = false;
  function simulationBlock():
    | { blockTag: "pending" }
    | { blockTag: "latest"; blockOverrides: { time: bigint; number: bigint } } {
    const head = fees.latestHead();
    if (!head || blockOverridesRefused) return { blockTag: "pending" };
    const now = BigInt(Math.floor(Date.now() / 1000));
    // The poller may have seen a newer block than the fee read's.
    let latest = head.number;
    if (poller.latestBlock !== undefined && poller.latestBlock > latest) latest = poller.latestBlock;
    return {
      blockTag: "latest",
      blockOverrides: { time: now > head.timestamp ? now : head.timestamp + 1n, number: latest + 1n },
    };
  }

  return { simulate };
}
