import { afterAll, describe, expect, test } from "bun:test";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { createCallBatcher } from "../../src/chain/call-batch";
import { chainOf, freshPayer, randomAddress } from "../support/chain";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { baseRequirements, listeningService, x402Buyer } from "./support";

const base = chainOf("base");
const token = base.token.address;

/** A pass-through to the devnet that counts HTTP requests and the calls in each. */
function countingNode() {
  const batches: number[] = [];
  const authorizations: (string | null)[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = await request.text();
      const parsed = JSON.parse(body);
      batches.push(Array.isArray(parsed) ? parsed.length : 1);
      authorizations.push(request.headers.get("authorization"));
      const answer = await fetch(base.info.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      return new Response(await answer.text(), { headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port,
    batches,
    authorizations,
    stop: () => server.stop(true),
  };
}

const node = countingNode();
const down = jsonRpcProxy(base.info.rpcUrl);
down.state.down = true;
afterAll(() => {
  node.stop();
  down.stop();
});

const balanceCall = (holder: Hex) => encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] });

describe("the verify's eth_call batcher", () => {
  test("calls made in one turn go out as one JSON-RPC batch and each gets the node's own answer", async () => {
    const payers = await Promise.all([freshPayer("base", { tokens: 7n }), freshPayer("base", { tokens: 11n })]);
    const call = createCallBatcher(node.url, 10_000).call;
    const before = node.batches.length;
    const holders = [payers[0].address, payers[1].address, randomAddress()];
    const answers = await Promise.all(holders.map((holder) => call(token, balanceCall(holder))));
    expect(node.batches.slice(before)).toEqual([3]);
    const viaViem = await Promise.all(
      holders.map((holder) =>
        base.public.request({ method: "eth_call", params: [{ to: token, data: balanceCall(holder) }, "latest"] }),
      ),
    );
    expect(answers).toEqual(viaViem as Hex[]);
    expect(answers.map((answer) => BigInt(answer))).toEqual([7n, 11n, 0n]);
  });

  test("a turn's calls beyond five go out in batches of five, each answered with its own call's answer", async () => {
    const payer = await freshPayer("base", { tokens: 5n });
    const call = createCallBatcher(node.url, 10_000).call;
    const before = node.batches.length;
    const holders = Array.from({ length: 12 }, (_, i) => (i % 4 === 0 ? payer.address : randomAddress()));
    const answers = await Promise.all(holders.map((holder) => call(token, balanceCall(holder))));
    expect(node.batches.slice(before)).toEqual([5, 5, 2]);
    expect(answers.map((answer) => BigInt(answer))).toEqual(holders.map((h) => (h === payer.address ? 5n : 0n)));
  });

  test("a call the node answers with an error rejects, and the others of its batch still get their answers", async () => {
    const call = createCallBatcher(node.url, 10_000).call;
    const holder = randomAddress();
    const [good, bad] = await Promise.allSettled([
      call(token, balanceCall(holder)),
      call(token, "0xdeadbeef"), // no such function: the token reverts
    ]);
    expect(good).toEqual({ status: "fulfilled", value: `0x${"0".repeat(64)}` });
    expect(bad.status).toBe("rejected");
  });

  test("an unreachable or failing node rejects every call (the caller then asks viem's client)", async () => {
    const failing = createCallBatcher(down.url, 10_000).call;
    const results = await Promise.allSettled([
      failing(token, balanceCall(randomAddress())),
      failing(undefined, "0x00"),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    const closed = createCallBatcher("http://127.0.0.1:9", 2_000).call;
    await expect(closed(token, balanceCall(randomAddress()))).rejects.toBeDefined();
  });

  test("after a batch failed as a whole the URL is skipped: calls reject at once, without a request", async () => {
    const dead = jsonRpcProxy(base.info.rpcUrl);
    try {
      dead.state.down = true;
      const call = createCallBatcher(dead.url, 10_000).call;
      await expect(call(token, balanceCall(randomAddress()))).rejects.toThrow("HTTP 503");
      dead.state.down = false; // back, but skipped for a while
      await expect(call(token, balanceCall(randomAddress()))).rejects.toThrow("failed recently");
      expect(dead.counts.get("eth_call") ?? 0).toBe(0);
    } finally {
      dead.stop();
    }
  });

  test("credentials in the URL are sent as Basic authorization, as viem's transport sends them", async () => {
    const call = createCallBatcher(`http://relay:p%40ss@127.0.0.1:${node.port}`, 10_000).call;
    expect(BigInt(await call(token, balanceCall(randomAddress())))).toBe(0n);
    expect(node.authorizations.at(-1)).toBe(`Basic ${btoa("relay:p@ss")}`);
  });

  test("refuses to write a quote or a backslash into the batch's JSON, or a 'to' that is not an address", async () => {
    const call = createCallBatcher(node.url, 10_000).call;
    const before = node.batches.length;
    await expect(call(token, '0x00"},"latest"],"method":"eth_sendRawTransaction' as Hex)).rejects.toThrow("not hex");
    await expect(call('0x0"' as Hex, "0x00")).rejects.toThrow("not hex");
    await expect(call(token, "0x00\\u0022" as Hex)).rejects.toThrow("not hex");
    await expect(call(token, "00" as Hex)).rejects.toThrow("not hex");
    await Bun.sleep(20);
    expect(node.batches.length).toBe(before);
  });
});

describe("x402 /verify when the network's first RPC URL is down", () => {
  // The batcher asks only the first URL; its calls then go through viem's client, which fails over to the second.
  const service = listeningService({}, (config) => {
    const network = config.networks.base as { rpcUrls: string[] };
    network.rpcUrls = [down.url, ...network.rpcUrls];
  });
  afterAll(() => service.stop());

  test("a valid payment is valid, a payer without the funds is refused as before", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_000n);
    const payment = await buyer.pay(requirements);
    const facilitator = service.facilitator();
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: buyer.address });
    const poor = await x402Buyer({ tokens: 0n });
    const unpaid = await poor.pay(requirements);
    expect(await facilitator.verify(unpaid, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
    });
  });
});

describe("x402 /verify's signature check: the ecrecover precompile first, the ERC-6492 validator when it does not give the payer", () => {
  const rpc = jsonRpcProxy(base.info.rpcUrl);
  const service = listeningService({}, (config) => {
    (config.networks.base as { rpcUrls: string[] }).rpcUrls = [rpc.url];
  });
  afterAll(() => {
    service.stop();
    rpc.stop();
  });
  // Runtime code answering every call with isValidSignature's magic value 0x1626ba7e, or with 0xffffffff.
  const ACCEPTS_ALL = "0x631626ba7e60e01b60005260206000f3";
  const REFUSES_ALL = "0x63ffffffff60e01b60005260206000f3";
  const ethCallCount = () => rpc.counts.get("eth_call") ?? 0;

  const verifyCounting = async (payment: unknown, requirements: ReturnType<typeof baseRequirements>) => {
    const before = ethCallCount();
    const answer = await service.facilitator().verify(payment as never, requirements);
    return { answer, ethCalls: ethCallCount() - before };
  };

  test("a payer's own signature: valid from one eth_call (Multicall3: the precompile and the token's two reads), no validator call", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_000n);
    const { answer, ethCalls } = await verifyCounting(await buyer.pay(requirements), requirements);
    expect(answer).toMatchObject({ isValid: true, payer: buyer.address });
    expect(ethCalls).toBe(1);
  });

  test("another key's signature is refused after the validator's call (and viem's)", async () => {
    const buyer = await x402Buyer();
    const other = await x402Buyer();
    const requirements = baseRequirements(1_000n);
    const signed = await other.pay(requirements);
    // The other key's authorization, claimed for the buyer.
    const payload = signed.payload as { authorization: { from: string } };
    payload.authorization.from = buyer.address;
    const { answer, ethCalls } = await verifyCounting(signed, requirements);
    expect(answer).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    expect(ethCalls).toBeGreaterThan(1);
  });

  test("a payer with code that accepts any signature (ERC-1271): another key's signature is valid through the validator", async () => {
    const buyer = await x402Buyer();
    const other = await x402Buyer();
    await base.test.setCode({ address: buyer.address, bytecode: ACCEPTS_ALL });
    const requirements = baseRequirements(1_000n);
    const signed = await other.pay(requirements);
    (signed.payload as { authorization: { from: string } }).authorization.from = buyer.address;
    const { answer, ethCalls } = await verifyCounting(signed, requirements);
    expect(answer).toMatchObject({ isValid: true, payer: buyer.address });
    expect(ethCalls).toBe(2); // the Multicall3 of the precompile (another signer) and the token's two reads, the validator
  });

  test("a payer with code that refuses every signature: its own key's signature is valid, as viem's verifyHash finds it", async () => {
    // The validator answers false, and verifyHash then recovers the payer from the signature: valid before this change too.
    const buyer = await x402Buyer();
    await base.test.setCode({ address: buyer.address, bytecode: REFUSES_ALL });
    const requirements = baseRequirements(1_000n);
    const { answer } = await verifyCounting(await buyer.pay(requirements), requirements);
    expect(answer).toMatchObject({ isValid: true, payer: buyer.address });
  });
});
