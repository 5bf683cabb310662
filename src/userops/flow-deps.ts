import type { NetworkRuntime, Networks } from "../chain/networks";
import { type Capability, requireCapability, smartWalletSettingsOf } from "../config/capabilities";
import type { DenyCounters } from "../deny/deny-counters";
import type { InFlightUserOps } from "./in-flight";
import type { IssueUserOpDeps } from "./issue-user-op";
import type { AsyncIssuedUserOpStore } from "./issued-user-op-store";
import type { SettleDeps } from "./settle-user-op";
import { type UserOpNetwork, userOpNetworkOf } from "./user-op-network";

/** What a UserOp flow's service object is built from: the issued UserOps and deny counters every flow shares. */
export type UserOpFlowDeps = {
  networks: Networks;
  store: AsyncIssuedUserOpStore;
  deny: DenyCounters;
  paymasterValiditySeconds: number;
  /** Unix seconds; the clock by default. */
  now?: () => number;
  /** The kernel's sweep of UserOps left in flight, where each flow's settler registers how its kind concludes. */
  inFlight?: Pick<InFlightUserOps, "register">;
};

/** The networks a UserOp can be issued on: those with smart wallets. */
export const smartWalletNetworks = (networks: Networks): UserOpNetwork[] =>
  networks
    .all()
    .filter((network) => smartWalletSettingsOf(network.config))
    .map(userOpNetworkOf);

/** The kernel's dependencies as a flow hands them on: settle's (across every enabled network) and verify's. */
export function userOpKernel(deps: UserOpFlowDeps) {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const settle: SettleDeps = {
    // Settles look a UserOp up on every network that can have issued one: those with smart wallets.
    networks: () => smartWalletNetworks(deps.networks),
    store: deps.store,
    deny: deps.deny,
    now,
    inFlight: deps.inFlight,
  };
  const issue: IssueUserOpDeps = { store: deps.store, deny: deps.deny, validitySeconds: deps.paymasterValiditySeconds };
  return {
    now,
    settle,
    issue,
    /**
     * Verify's dependencies on one network, by name or by its runtime: refused when the network is not enabled,
     * or does not enable `capability` (smart wallets by default).
     */
    issueOn: (
      network: string | NetworkRuntime,
      capability: Capability = "smart-wallets",
    ): IssueUserOpDeps & { network: UserOpNetwork } => {
      const runtime = typeof network === "string" ? deps.networks.get(network, { capability }) : network;
      requireCapability(runtime, capability, "paymentRequirements.network");
      return { ...issue, network: userOpNetworkOf(runtime) };
    },
  };
}
