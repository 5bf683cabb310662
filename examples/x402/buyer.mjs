// An x402 buyer with @x402/fetch: GET a paid URL, read what the merchant asks (its 402), then pay it on NETWORK and
// get the resource. Two things x402's client needs told before it pays through relay402, and why:
// - spend controls: it pays only x402's default assets (USDC on Base mainnet, at most $1 a payment) unless others are
//   allowed. BNB Chain's USDT is not one, nor is any devnet token, so the asset the merchant asks for is allowed
//   here, capped at MAX_PRICE (in the asset's units, default 0.05): the buyer's own ceiling, not the merchant's.
// - Permit2: a token without EIP-3009 (BNB Chain's USDT) is paid through Permit2, which moves only what the buyer
//   allowed it. A merchant whose 402 offers x402's gas sponsoring (relay402 performs both kinds) lets the buyer give
//   that allowance without gas: x402's client signs an EIP-2612 permit or an approve that relay402 funds and
//   broadcasts, beside the payment; it needs the RPC to read the allowance and nonces (RPC_URL). A merchant that offers
//   none leaves the approve to the buyer, once per token, on its own gas; without gas it cannot be sent, and this
//   says so.
// Run under Node: URL=http://127.0.0.1:4021/report NETWORK=bsc RPC_URL=… PRIVATE_KEY=0x… node examples/x402/buyer.mjs
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { createPermit2ApprovalTx, getPermit2AllowanceReadParams } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  formatEther,
  http,
  InsufficientFundsError,
  parseUnits,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { networkNamed, required, run } from "./setup.mjs";

run(async () => {
  const url = required("URL");
  const networkName = process.env.NETWORK ?? "base";
  const { network, native } = networkNamed(networkName);
  const account = privateKeyToAccount(required("PRIVATE_KEY"));
  const chain = defineChain({
    id: Number(network.slice("eip155:".length)),
    name: networkName,
    nativeCurrency: { name: native, symbol: native, decimals: 18 },
    rpcUrls: { default: { http: [required("RPC_URL")] } },
  });
  const publicClient = createPublicClient({ chain, transport: http() });

  // 1. What the merchant asks: its 402 lists a price per network; this buyer pays on NETWORK only.
  const unpaid = await fetch(url);
  if (unpaid.status !== 402) throw new Error(`${url} answered ${unpaid.status}, not 402 Payment Required`);
  const http402 = new x402HTTPClient(new x402Client());
  const asked = http402.getPaymentRequiredResponse(
    (name) => unpaid.headers.get(name),
    await unpaid.json().catch(() => null),
  );
  const requirement = asked.accepts.find((option) => option.network === network);
  if (!requirement) throw new Error(`${url} is not sold on ${networkName} (${network})`);
  const method = requirement.extra?.assetTransferMethod ?? "eip3009";
  const decimals = await publicClient.readContract({
    address: requirement.asset,
    abi: erc20Abi,
    functionName: "decimals",
  });
  console.log(
    `${url} asks ${requirement.amount} (atomic) of ${requirement.asset} on ${networkName}, paid with ${method}`,
  );

  // 2. Spend controls: this asset, at most MAX_PRICE a payment.
  const cap = parseUnits(process.env.MAX_PRICE ?? "0.05", decimals);
  if (BigInt(requirement.amount) > cap) throw new Error(`the price is above MAX_PRICE (${cap} atomic): not paid`);
  const client = registerExactEvmScheme(new x402Client(), {
    signer: account,
    networks: [network],
    // The chain x402's client reads to sign a sponsoring extension (the allowance, the token's and the payer's nonces).
    schemeOptions: { [chain.id]: { rpcUrl: required("RPC_URL") } },
  });
  client.setSpendControls({
    allowedAssets: [{ network, asset: requirement.asset, maxAmountPerPayment: cap.toString() }],
  });

  // 3. Permit2 without the merchant's gas sponsoring: approve it once for the token (x402's own approve
  // transaction: unlimited), paying the gas. With sponsoring offered, x402's client does it without gas in step 4.
  const offered = Object.keys(asked.extensions ?? {}).filter((name) => name.endsWith("GasSponsoring"));
  let approval = null;
  if (method === "permit2" && offered.length === 0) {
    const allowance = await publicClient.readContract(
      getPermit2AllowanceReadParams({ tokenAddress: requirement.asset, ownerAddress: account.address }),
    );
    if (allowance < BigInt(requirement.amount))
      approval = await approvePermit2({ chain, publicClient, account, native, networkName }, requirement.asset);
  }

  // 4. Pay: the wrapped fetch meets the 402, signs, and sends the payment; the merchant's facilitator settles it.
  let sent = null;
  const recordingFetch = (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
    sent = headers.get("PAYMENT-SIGNATURE") ?? sent;
    return fetch(input, init);
  };
  const paidFetch = wrapFetchWithPayment(recordingFetch, client);
  const response = await paidFetch(url);
  // Which sponsoring the payment carried, if any: the payload echoes every extension the merchant offered, and x402's
  // client signs one (an approve, or a permit) only when the allowance is short.
  const payload = sent ? JSON.parse(Buffer.from(sent, "base64").toString("utf8")) : null;
  const sponsoring = Object.entries(payload?.extensions ?? {})
    .filter(([, extension]) => extension?.info?.signedTransaction || extension?.info?.signature)
    .map(([name]) => name);
  if (sponsoring.length > 0) console.log(`the Permit2 allowance came with the payment: ${sponsoring.join(", ")}`);
  const body = await response.text();
  const receipt = response.headers.get("PAYMENT-RESPONSE");
  const settlement = receipt ? decodePaymentResponseHeader(receipt) : null;
  console.log(`${response.status}: ${body}`);
  // Refused: the merchant's new 402 says why (x402's reason code, e.g. a payment under relay402's minimum for funding).
  const refusal = response.status === 402 ? response.headers.get("PAYMENT-REQUIRED") : null;
  if (refusal) console.log(`refused: ${JSON.parse(Buffer.from(refusal, "base64").toString("utf8")).error}`);
  if (settlement) console.log(`paid in ${settlement.transaction} on ${settlement.network}`);
  // One line for scripts (the test suite reads it).
  console.log(
    JSON.stringify({ status: response.status, body, payer: account.address, approval, sponsoring, settlement }),
  );
  if (response.status !== 200) process.exitCode = 1;
});

/** x402's own approve of Permit2 for `token`, sent by the buyer; without gas for it, a message that says what to do. */
async function approvePermit2({ chain, publicClient, account, native, networkName }, token) {
  const wallet = createWalletClient({ chain, transport: http(), account });
  const transaction = createPermit2ApprovalTx(token);
  let hash;
  try {
    hash = await wallet.sendTransaction(transaction);
  } catch (error) {
    const noGas = error instanceof BaseError && error.walk((cause) => cause instanceof InsufficientFundsError);
    if (!noGas) throw error;
    const balance = await publicClient.getBalance({ address: account.address });
    throw new Error(
      `${account.address} has ${formatEther(balance)} ${native} on ${networkName}, not enough for the gas of its ` +
        `one-time Permit2 approve of ${token}: send it a little ${native}, then run this again. The payment itself ` +
        "costs it no gas (relay402 sends it); only this approve does, once per token, where the merchant offers no " +
        "gas sponsoring.",
    );
  }
  const mined = await publicClient.waitForTransactionReceipt({ hash });
  if (mined.status !== "success") throw new Error(`the Permit2 approve ${hash} reverted`);
  console.log(`approved Permit2 for ${token} in ${hash}`);
  return hash;
}
