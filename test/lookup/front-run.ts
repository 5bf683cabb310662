// A payment front-run on the devnet: the payer signs A (to the merchant) and B (1 wei elsewhere) with one nonce,
// asks the service to settle A, and submits B itself, ahead of the service's transaction. The service's record is
// watched through the lookup itself: pending with its transaction once it was sent.
import { expect } from "bun:test";
import { paymentIdOf } from "@relay402/client";
import type { Hex } from "viem";
import { signedPayment, submitAhead } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { until } from "../support/until";

type Service = {
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>;
  get: (path: string) => Promise<{ status: number; body: any }>;
};

export async function frontRunPayment(service: Service, network: "bsc" | "base") {
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit);
  const a = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 100n * unit });
  const nonce = a.paymentPayload.payload.authorization.nonce as Hex;
  const b = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 1n, nonce });
  const paymentId = paymentIdOf({ chainId: c.info.chainId, contract: c.info.relayer, payer: payer.address, nonce });
  await c.test.setAutomine(false);
  let answer: { status: number; body: any };
  try {
    const settling = service.post("/settle", a);
    let sent: any;
    await until("the service's transaction sent", async () => {
      const record = await service.get(`/payments/${paymentId}`);
      sent = record.body;
      return record.status === 200 && Boolean(record.body.transaction);
    });
    expect(sent).toMatchObject({ status: "pending", block: null });
    await Bun.sleep(200);
    await submitAhead(payer.key, b);
    await c.test.mine({ blocks: 1 });
    answer = await settling;
  } finally {
    await c.test.setAutomine(true);
  }
  return { paymentId: paymentId.toLowerCase(), answer };
}
