import { erc20Abi } from "@relay402/client/wire/abis";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import { Elysia, t } from "elysia";
import { type Address, encodeFunctionData, getAddress, type Hex } from "viem";
import type { Flow, FlowContext } from "../../../src/flow";
import { issueUserOp } from "../../../src/userops/issue-user-op";
import { createUserOpSettler } from "../../../src/userops/settle-user-op";
import { userOpNetworkOf } from "../../../src/userops/user-op-network";

/**
 * A throwaway flow that proves the plugin shape: a smart wallet tips the fee recipient in one sponsored call.
 * Everything it needs comes from the UserOp kernel; the service learns of it from this declaration alone.
 */
export const tipJarFlow: Flow<"tipJar", ReturnType<typeof createTipJar>> = {
  name: "tipJar",
  create: (context) => createTipJar(context),
  routes: (tipJar) =>
    new Elysia({ name: "tip-jar" })
      .post("/tip/verify", ({ body }) => tipJar.verify(body), {
        body: t.Object({ network: t.String(), walletAddress: t.String(), token: t.String(), amount: t.String() }),
      })
      .post(
        "/tip/settle",
        ({ body }) => tipJar.settle({ userOp: body.userOp as RpcUserOp, signature: body.signature as Hex }),
        {
          body: t.Object({ userOp: t.Record(t.String(), t.Unknown()), signature: t.String() }),
        },
      ),
  sending: { "/tip/settle": "tip" },
};

function createTipJar(context: FlowContext) {
  const kernel = {
    store: context.issued,
    deny: context.deny,
    validitySeconds: context.config.paymasterValiditySeconds,
  };
  const settle = createUserOpSettler(
    { ...kernel, networks: () => context.networks.all().map(userOpNetworkOf), now: () => Number(context.now()) },
    {
      kind: "payment",
      issuedBy: "/tip/verify",
      respond: ({ hash }, outcome) => ({ success: true, txHash: outcome.transactionHash, userOpHash: hash }),
    },
  );
  return {
    async verify(body: { network: string; walletAddress: string; token: string; amount: string }) {
      const network = userOpNetworkOf(context.networks.get(body.network));
      const token = getAddress(body.token);
      const amount = BigInt(body.amount);
      const to = network.runtime.config.feeRecipient as Address;
      const issued = await issueUserOp(kernel, {
        network,
        sender: getAddress(body.walletAddress),
        spends: { token, amount },
        calls: [
          { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] }) },
        ],
        kind: "payment",
        context: { token, totalAmount: body.amount },
        fields: { sender: "walletAddress", balance: "amount" },
      });
      return { userOp: issued.userOp, userOpHash: issued.userOpHash };
    },
    settle,
  };
}
