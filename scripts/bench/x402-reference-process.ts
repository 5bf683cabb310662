// Child of scripts/bench/vs-x402.ts: the x402 reference facilitator (@x402/core's x402Facilitator with
// @x402/evm's exact scheme, EIP-3009 on the token) served over HTTP as x402's facilitator protocol has it
// (POST /verify and /settle with { x402Version, paymentPayload, paymentRequirements }), in a process of its own.
// Its signer is a viem wallet client on viem's own `base` chain definition (what an operator on Base would use;
// its 2-s block time makes viem poll receipts every second), pointed at REFERENCE_RPC_URL; REFERENCE_POLLING_MS
// overrides the polling interval.
import "../../src/production-env";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, type Hex, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base } from "viem/chains";

const rpcUrl = process.env.REFERENCE_RPC_URL ?? "";
const account = privateKeyToAccount(process.env.REFERENCE_KEY as Hex);
const polling = Number(process.env.REFERENCE_POLLING_MS);
const client = createWalletClient({
  account,
  chain: { ...base, rpcUrls: { default: { http: [rpcUrl] } } },
  transport: http(rpcUrl),
  ...(polling > 0 ? { pollingInterval: polling } : {}),
}).extend(publicActions);

// The signer as x402's facilitator examples build it from a viem client.
const signer = toFacilitatorEvmSigner({
  address: account.address,
  getCode: (args) => client.getCode(args),
  readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as never),
  verifyTypedData: (args) => client.verifyTypedData(args as never),
  writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as never),
  sendTransaction: (args) => client.sendTransaction(args),
  waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
});
const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: `eip155:${base.id}` });

type Body = { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST" || (path !== "/verify" && path !== "/settle"))
      return new Response("not found", { status: 404 });
    try {
      const body = (await request.json()) as Body;
      const answer =
        path === "/verify"
          ? await facilitator.verify(body.paymentPayload, body.paymentRequirements)
          : await facilitator.settle(body.paymentPayload, body.paymentRequirements);
      return Response.json(answer);
    } catch (error) {
      return Response.json({ error: (error as Error).message.slice(0, 200) }, { status: 500 });
    }
  },
});

process.on("message", (message) => {
  if (message === "stop") {
    server.stop(true);
    process.exit(0);
  }
});
process.send?.({
  kind: "ready",
  url: `http://127.0.0.1:${server.port}`,
  info: { signer: account.address, receiptPollingMs: client.pollingInterval },
});
