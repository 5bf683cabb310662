import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  formatUnits,
  http,
  isAddress,
  type PublicClient,
} from "viem";
import { z } from "zod";
import { createRelay402Client } from "../client.js";
import { Relay402ClientError } from "../errors.js";
import { getConfig, type TokenConfig } from "../get-config.js";
import type { NetworkName, SignerClient } from "../types.js";
import { erc20Abi } from "../wire/abis.js";
import { NETWORKS } from "../wire/networks.js";
import { type PaymentContext, payWithinLimits } from "./agent-payment.js";
import { quoteAgentSwap, swapWithinLimits } from "./agent-swap.js";
import { chainFactsFrom, withChainDecimals } from "./chain-facts.js";
import type { McpSettings } from "./settings.js";
import { SpendLedger } from "./spend-ledger.js";
import { refuse, safeMessage } from "./spend-policy.js";
import { buyWithinLimits, type PurchaseOptions } from "./x402-purchase.js";

/** Tool answers are JSON text (bigints as decimal strings); a refusal is an error result the agent can read. */
function answer(value: unknown, isError = false): CallToolResult {
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2);
  return { content: [{ type: "text", text }], isError };
}

/** A tool's failure as an error result the agent can read, without RPC URLs (safeMessage). */
function guarded<A extends unknown[]>(handler: (...args: A) => Promise<CallToolResult>) {
  return async (...args: A): Promise<CallToolResult> => {
    try {
      return await handler(...args);
    } catch (error) {
      return answer({ status: "failed", code: "tool_failed", message: safeMessage(error) }, true);
    }
  };
}

/**
 * The relay402 MCP server: an agent's tools to see what it may pay with and pay within the operator's limits.
 * Its key, the service URL and the limits come from `settings` (the server's environment and config file).
 */
export function createRelay402McpServer(
  settings: McpSettings,
  version: string,
  options: PurchaseOptions = {},
): McpServer {
  const relay402 = createRelay402Client({ url: settings.url });
  const ledger = new SpendLedger(join(settings.dataDir, "spent.jsonl"));
  const chainFacts = chainFactsFrom(settings.rpcUrls);
  const clients = new Map<NetworkName, { signer: SignerClient; publicClient: PublicClient }>();

  async function clientsFor(network: NetworkName) {
    const existing = clients.get(network);
    if (existing) return existing;
    const rpc = settings.rpcUrls[network];
    const config = (await getConfig(relay402)).networks[network];
    if (!rpc || !config) {
      throw new Relay402ClientError("validation_error", `${network} is not configured here or on the service`);
    }
    const chain = defineChain({
      id: await chainFacts.chainIdOf(network),
      name: network,
      nativeCurrency: { name: "native", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpc] } },
    });
    const transport = http(rpc);
    const made = {
      signer: createWalletClient({ chain, transport, account: settings.account }),
      publicClient: createPublicClient({ chain, transport, pollingInterval: 250 }) as PublicClient,
    };
    clients.set(network, made);
    return made;
  }

  const paymentContext: PaymentContext = {
    settings,
    relay402,
    ledger,
    chain: chainFacts,
    clientsFor,
    logFile: join(settings.dataDir, "payments.log"),
  };

  // Payments run one at a time: one payer's approvals would race for its account nonce, and a retry of a key
  // still in flight finds its outcome recorded instead of signing beside it.
  let payments: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = payments.then(work);
    payments = run.catch(() => undefined);
    return run;
  }

  const server = new McpServer({ name: "relay402", version });

  server.registerTool(
    "relay402_networks",
    {
      description:
        "The networks, tokens and fees this agent can pay with through relay402, its address, and the operator's spending limits.",
      annotations: { readOnlyHint: true },
    },
    guarded(async () => {
      const config = await getConfig(relay402);
      // The operator's limits of a token and what the ledger says is spent of it, in token units.
      const limitsOf = (network: string, token: TokenConfig) => {
        const limits = settings.limits.find(
          (limit) => limit.network === network && limit.token.toLowerCase() === token.address.toLowerCase(),
        );
        if (!limits) return { limits: "not allowed: no limit configured" };
        const spent = ledger.spent(network, token.address);
        const { perPayment, perDay, total } = limits;
        return {
          limits: { perPayment, perDay, total },
          spent: {
            last24Hours: formatUnits(spent.day, token.decimals),
            total: formatUnits(spent.total, token.decimals),
          },
        };
      };
      // Decimals as each token's contract answers on the agent's RPC: the limits are counted in them.
      const networks = await Promise.all(
        Object.entries(config.networks)
          .filter(([name]) => settings.rpcUrls[name as NetworkName])
          .map(async ([name, network]) => ({
            network: name,
            chainId: await chainFacts.chainIdOf(name as NetworkName),
            tokens: await Promise.all(
              (network?.tokens ?? []).map(async (listed) => {
                const token = await withChainDecimals(chainFacts, name as NetworkName, listed);
                return {
                  symbol: token.symbol,
                  address: token.address,
                  decimals: token.decimals,
                  fees: token.fees,
                  minPaymentValue: token.minPaymentValue,
                  ...limitsOf(name, token),
                };
              }),
            ),
            swaps: Boolean(network?.swap),
            incognito: Boolean(network?.incognito),
          })),
      );
      return answer({
        address: settings.account.address,
        networks,
        note: "EOA payments are free of relay402 fees: the payee receives the amount paid; the payer pays gas only for a token approval.",
        allowedRecipients: settings.allowedRecipients ?? "any",
        allowedHosts: settings.allowedHosts ?? "none: relay402_buy is off until allowedHosts is configured",
      });
    }),
  );

  server.registerTool(
    "relay402_balances",
    {
      description: "This agent's balances of each token it can use, and of the native coin (gas), on each network.",
      annotations: { readOnlyHint: true },
    },
    guarded(async () => {
      const config = await getConfig(relay402);
      const balances = [];
      for (const [name, network] of Object.entries(config.networks)) {
        if (!network || !settings.rpcUrls[name as NetworkName]) continue;
        const { publicClient } = await clientsFor(name as NetworkName);
        const address = settings.account.address;
        const native = await publicClient.getBalance({ address });
        const tokens = await Promise.all(
          network.tokens.map(async (listed) => {
            const token = await withChainDecimals(chainFacts, name as NetworkName, listed);
            const balance = await publicClient.readContract({
              address: token.address,
              abi: erc20Abi,
              functionName: "balanceOf",
              args: [address],
            });
            return { symbol: token.symbol, address: token.address, balance: formatUnits(balance, token.decimals) };
          }),
        );
        balances.push({ network: name, native: formatUnits(native, 18), tokens });
      }
      return answer({ address: settings.account.address, balances });
    }),
  );

  server.registerTool(
    "relay402_pay",
    {
      description:
        "Pay an address in a token through relay402 (an EOA payment: free of fees, the payee receives exactly the amount). " +
        "Give an idempotencyKey and reuse it when retrying: a retried call with the same key pays once. Without one, a " +
        "new key is made and returned. Refused (without paying) when it breaks an operator's limit; the answer says which.",
      inputSchema: {
        network: z.enum(NETWORKS),
        token: z.string().min(1).describe("the token's address or symbol (see relay402_networks)"),
        to: z
          .string()
          .refine((value) => isAddress(value), "an address")
          .describe("the payee's address"),
        amount: z
          .string()
          .regex(/^\d+(\.\d+)?$/, "a decimal amount")
          .describe("in token units, e.g. 2.5"),
        idempotencyKey: z.string().min(1).max(200).optional(),
      },
    },
    guarded(async (args) => {
      const idempotencyKey = args.idempotencyKey ?? crypto.randomUUID();
      const outcome = await oneAtATime(() =>
        payWithinLimits(paymentContext, "relay402_pay", {
          network: args.network,
          token: args.token,
          to: args.to as `0x${string}`,
          amount: args.amount,
          idempotencyKey,
        }),
      );
      return answer(outcome.status === "paid" ? outcome : { ...outcome, idempotencyKey }, outcome.status !== "paid");
    }),
  );

  server.registerTool(
    "relay402_buy",
    {
      description:
        "Fetch an x402 resource (a URL that answers 402 Payment Required) from a host the operator allows, pay it within the operator's limits and " +
        "return its answer. The merchant's facilitator settles the payment. Reuse the idempotencyKey when retrying: " +
        "a key that already bought is not paid again. A URL that does not ask for payment is returned as is.",
      inputSchema: {
        url: z.string().url().describe("the resource's http(s) URL"),
        method: z.enum(["GET", "POST"]).default("GET"),
        body: z.string().max(100_000).optional().describe("a POST body"),
        idempotencyKey: z.string().min(1).max(200).optional(),
      },
    },
    guarded(async (args) => {
      const idempotencyKey = args.idempotencyKey ?? crypto.randomUUID();
      if (!/^https?:$/.test(new URL(args.url).protocol))
        return answer(refuse("validation_error", "url must be http(s)"), true);
      const result = await oneAtATime(() =>
        buyWithinLimits(
          paymentContext,
          { url: args.url, method: args.method, body: args.body, idempotencyKey },
          options,
        ),
      );
      return answer({ ...result, idempotencyKey }, "status" in result && result.status === "refused");
    }),
  );

  const swapShape = {
    network: z.enum(NETWORKS),
    sellToken: z.string().min(1).describe("address or symbol"),
    buyToken: z.string().min(1).describe("address or symbol"),
    sellAmount: z
      .string()
      .regex(/^\d+(\.\d+)?$/, "a decimal amount")
      .describe("in sellToken units, fee included"),
    slippageBps: z.number().int().min(0).max(5000).optional().describe("the floor below the quote; default 50"),
  };

  server.registerTool(
    "relay402_swap_quote",
    {
      description:
        "Quote a swap through relay402's whitelisted DEX routers: what the agent would receive, the minimum and the fee. Signs nothing.",
      inputSchema: swapShape,
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const quote = await quoteAgentSwap(paymentContext, args);
      return answer(quote, "status" in quote && quote.status === "refused");
    }),
  );

  server.registerTool(
    "relay402_swap",
    {
      description:
        "Swap sellAmount of sellToken for buyToken, received by the agent itself. The sell amount counts against the " +
        "sell token's limits. Reuse the idempotencyKey when retrying: a key swaps once.",
      inputSchema: { ...swapShape, idempotencyKey: z.string().min(1).max(200).optional() },
    },
    guarded(async (args) => {
      const idempotencyKey = args.idempotencyKey ?? crypto.randomUUID();
      const outcome = await oneAtATime(() => swapWithinLimits(paymentContext, { ...args, idempotencyKey }));
      return answer({ ...outcome, idempotencyKey }, outcome.status === "refused");
    }),
  );

  return server;
}
