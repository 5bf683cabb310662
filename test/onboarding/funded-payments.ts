// Funded approves through a service's /settle on the devnet, and what each payer received in native coins as the
// chain says it: one paid, one diverted (the payer spent the funding with another transaction of the approve's nonce).
import { type Hex, keccak256, parseGwei } from "viem";
import { chainOf, randomAddress } from "../support/chain";
import { until } from "../support/until";
import {
  type Net,
  nativeBalance,
  permit2Payment,
  plainRequirements,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";

type Post = (path: string, body: unknown) => Promise<{ status: number; body: any }>;

const price = 10n ** 18n;
/** What the diverting transfer pays for its gas: 21,000 at 4 gwei. */
export const TRANSFER_GAS_COST = 21_000n * parseGwei("4");

/** What a transaction cost its sender, from its receipt. */
export async function costOf(network: Net, hash: Hex) {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash });
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

/**
 * A token-only payer pays with a funded approve: answers the native coins it received (`received`: what it holds +
 * its approve's cost), the payer and its approve.
 */
export async function paidWithFundedApprove(post: Post, network: Net) {
  const payer = await tokenOnlyPayer(network);
  const requirements = plainRequirements(network, price);
  const raw = await signApprove(payer.key, network);
  const answer = await post("/settle", sponsoredBody(await permit2Payment(payer.key, requirements), requirements, raw));
  if (answer.body?.success !== true) throw new Error(`the funded payment failed: ${JSON.stringify(answer.body)}`);
  const received = (await nativeBalance(network, payer.address)) + (await costOf(network, keccak256(raw)));
  return { received, payer, raw };
}

/**
 * A token-only payer whose funded approve reached the pool replaces it with a transfer of the funding (same nonce, a
 * higher fee): the payment is refused and the funding is lost. Answers the service's answer, the payer, its
 * requirements and approve, where the funding went (`away`, the transfer paying `TRANSFER_GAS_COST`), and
 * `received`: the native coins it got (what it holds, sent away, and its transfer's cost). Automine is off meanwhile:
 * run it where nothing else uses the chain.
 */
export async function divertedFundedApprove(post: Post, network: Net) {
  const c = chainOf(network);
  const payer = await tokenOnlyPayer(network);
  const requirements = plainRequirements(network, price);
  const payment = await permit2Payment(payer.key, requirements);
  const raw = await signApprove(payer.key, network, { maxFeePerGas: parseGwei("2") });
  const away = randomAddress();
  let transfer: Hex | undefined;
  let settling: Promise<{ body: any }> | undefined;
  let answer: { body: any } | undefined;
  await c.test.setAutomine(false);
  try {
    settling = post("/settle", sponsoredBody(payment, requirements, raw));
    await until(
      "the funding in the pool",
      async () => (await c.public.getBalance({ address: payer.address, blockTag: "pending" })) > 0n,
    );
    await c.test.mine({ blocks: 1 });
    // Our broadcast of the approve reached the pool: the payer outbids it with a transfer of the same nonce.
    await until("the approve in the pool", () =>
      c.public.getTransaction({ hash: keccak256(raw) }).then(
        () => true,
        () => false,
      ),
    );
    const funded = await c.public.getBalance({ address: payer.address });
    transfer = await c.walletFor(payer.key).sendTransaction({
      to: away,
      value: funded - TRANSFER_GAS_COST,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: parseGwei("4"),
      maxPriorityFeePerGas: parseGwei("3"),
    });
    await c.test.mine({ blocks: 1 });
    await c.test.setAutomine(true);
    answer = await settling;
    if (answer.body?.success !== false)
      throw new Error(`the diverted payment was not refused: ${JSON.stringify(answer.body)}`);
  } finally {
    await c.test.setAutomine(true);
    await settling?.catch(() => undefined);
  }
  const received =
    (await nativeBalance(network, payer.address)) +
    (await c.public.getBalance({ address: away })) +
    (await costOf(network, transfer));
  return { answer, payer, requirements, raw, away, received };
}
