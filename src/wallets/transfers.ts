import { type Address, getAddress, type Hex, isAddressEqual, type Log, parseEventLogs } from "viem";
import { erc20Abi } from "../chain/abis";

export type PaymentRecord = { to: string; amount: string; token: string };

/**
 * The ERC-20 Transfer events out of `from` among `logs` (the logs of one UserOp's execution, read from the
 * chain) as the interface's payment records.
 */
export function transfersIn(
  logs: readonly { address: string; topics: Hex[]; data: Hex }[],
  from: Address,
): PaymentRecord[] {
  const events = parseEventLogs({
    abi: erc20Abi,
    eventName: "Transfer",
    logs: logs.map((log) => ({ ...log, topics: log.topics as [Hex, ...Hex[]] })) as unknown as Log[],
    strict: true,
  });
  return events
    .filter((event) => isAddressEqual(event.args.from, from))
    .map((event) => ({
      to: getAddress(event.args.to),
      amount: event.args.value.toString(),
      token: getAddress(event.address),
    }));
}
