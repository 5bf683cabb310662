import type { SwapQuoteBodySchema } from "@relay402/client/wire/swap/schemas";
import type { Static } from "@sinclair/typebox";
import type { NetworkRuntime, Networks } from "../chain/networks";
import type { DenyCounters } from "../deny/deny-counters";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import type { RelayerPort } from "../settlement/relayer-port";
import { type UserOpFlowDeps, userOpKernel } from "../userops/flow-deps";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import type { UserOpSettleRequest } from "../userops/settle-user-op";
import { quoteSwap, swapNetwork } from "./quote-swap";
import { minedRevertData, swapRevertCause, swapRevertCount } from "./revert-cause";
import { createSwapSettler } from "./settle-swap";
import { createWalletSwapSettler } from "./settle-wallet-swap";
import { parseSwapAuthorization, type SwapBody } from "./swap-authorization";
import type { AsyncSwapSettlementStore } from "./swap-store-postgres";
import { type SwapVerifyContext, verifySwap } from "./verify-swap";
import { verifyWalletSwap, type WalletSwapRequest } from "./verify-wallet-swap";

/** Swaps as the routes see them: one body in, one result out. */
export function createSwaps(deps: {
  /** The EOA swaps' settlement records (SQLite through asAsync, or PostgreSQL). */
  store: AsyncSwapSettlementStore;
  networks: Networks;
  relayerFor(network: NetworkRuntime): RelayerPort;
  deny: DenyCounters;
  now: () => bigint;
  logger: Logger;
  /** Smart-wallet swaps are UserOps of the kernel: issued in the store every wallet flow shares. */
  issued: AsyncIssuedUserOpStore;
  paymasterValiditySeconds: number;
  inFlight?: UserOpFlowDeps["inFlight"];
}) {
  const settler = createSwapSettler({
    store: deps.store,
    logger: deps.logger,
    // A price moved below the signed minimum (anyone can move a pool), or a cause nobody could read, refuses only
    // this payer's swaps, for a while.
    onPayerRevert: async (network, payer, reverted) => {
      const cause = swapRevertCause(await minedRevertData(network.client, reverted));
      const { kind, reason } = swapRevertCount(cause, { allFlows: "payer", swapsOnly: "swap_payer" });
      await deps.deny.recordRevert(network.name, kind, payer, reason);
    },
  });
  const kernel = userOpKernel({ ...deps, store: deps.issued, now: () => Number(deps.now()) });
  const walletSettler = createWalletSwapSettler(kernel.settle);
  const contextOf = (body: SwapBody): SwapVerifyContext => {
    const { network, swap } = swapNetwork(deps.networks, body.swapRequirements.network, "swapRequirements.network");
    return {
      network,
      swap,
      now: deps.now,
      domain: () => deps.relayerFor(network).domain(),
      isPayerDenied: async (payer) =>
        (await deps.deny.isDenied(network.name, "payer", payer)) ||
        (await deps.deny.isDenied(network.name, "swap_payer", payer)),
    };
  };
  return {
    /** Finishes the swap settlements a previous process left unfinished (called once at start). */
    reconcile: (which?: RecordFilter) => settler.reconcile(deps.networks, which),
    quote(body: Static<typeof SwapQuoteBodySchema>) {
      return quoteSwap(
        { networks: deps.networks, now: deps.now, domainOf: (network) => deps.relayerFor(network).domain() },
        body,
      );
    },
    async verify(body: SwapBody) {
      const context = contextOf(body);
      const { authorization, signature, route } = parseSwapAuthorization(body.swapPayload);
      const verdict = await verifySwap(context, authorization, signature, route, body.swapRequirements.relayerContract);
      if (verdict.isValid) return { isValid: true, payer: verdict.payer, buyAmount: verdict.buyAmount.toString() };
      return {
        isValid: false,
        payer: verdict.payer,
        invalidReason: verdict.invalidReason,
        invalidMessage: verdict.invalidMessage,
        ...(verdict.buyAmount !== undefined ? { buyAmount: verdict.buyAmount.toString() } : {}),
      };
    },
    settle(body: SwapBody) {
      const context = contextOf(body);
      const { authorization, signature, route } = parseSwapAuthorization(body.swapPayload);
      return settler.settle(context, authorization, signature, route, body.swapRequirements.relayerContract);
    },
    /** POST /wallet/swap/verify: the sponsored UserOp of a wallet's swap, or why it would not pay the minimum. */
    walletVerify(networkName: string, request: WalletSwapRequest) {
      const { network, swap } = swapNetwork(deps.networks, networkName, "paymentRequirements.network");
      return verifyWalletSwap({ ...kernel.issueOn(network, "smart-wallets"), swap }, request);
    },
    /** POST /wallet/swap/settle: as /wallet/settle, answered with the relayer's SwapExecuted. */
    walletSettle: (request: UserOpSettleRequest) => walletSettler(request),
  };
}

export type Swaps = ReturnType<typeof createSwaps>;
