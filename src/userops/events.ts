import {
  type Abi,
  type Address,
  type ContractEventName,
  type Hex,
  isAddressEqual,
  type Log,
  type ParseEventLogsReturnType,
  parseEventLogs,
} from "viem";
import type { ChainLog } from "./outcome";

/**
 * The events of `abi` among a UserOp's own logs (its outcome's, so never another UserOp's in the same bundle),
 * decoded; with `emitter`, only those that contract emitted, so a token or pool cannot be impersonated by any
 * other contract the calls touched. Logs the ABI does not describe are left out.
 */
export function eventsIn<const abi extends Abi, eventName extends ContractEventName<abi> | undefined = undefined>(
  logs: readonly ChainLog[],
  abi: abi,
  options: { emitter?: Address; eventName?: eventName } = {},
): ParseEventLogsReturnType<abi, eventName, true> {
  const { emitter, eventName } = options;
  const own = emitter ? logs.filter((log) => isAddressEqual(log.address, emitter)) : logs;
  return parseEventLogs({
    abi,
    eventName,
    logs: own.map((log) => ({ ...log, topics: log.topics as [Hex, ...Hex[]] })) as unknown as Log[],
    strict: true,
  }) as ParseEventLogsReturnType<abi, eventName, true>;
}
