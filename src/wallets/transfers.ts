import { erc20Abi } from "@relay402/client/wire/abis";
import type { WalletPaymentSettleResponseSchema } from "@relay402/client/wire/wallet-schemas";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, isAddressEqual } from "viem";
import { eventsIn } from "../userops/events";
import type { ChainLog } from "../userops/outcome";

export type PaymentRecord = Static<typeof WalletPaymentSettleResponseSchema>["payments"][number];

/**
 * The ERC-20 Transfer events out of `from` among `logs` (the logs of one UserOp's execution, read from the
 * chain) as the interface's payment records.
 */
export function transfersIn(logs: readonly ChainLog[], from: Address): PaymentRecord[] {
  return eventsIn(logs, erc20Abi, { eventName: "Transfer" })
    .filter((event) => isAddressEqual(event.args.from, from))
    .map((event) => ({
      to: getAddress(event.args.to),
      amount: event.args.value.toString(),
      token: getAddress(event.address),
    }));
}
