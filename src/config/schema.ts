import { FormatRegistry, type StaticDecode, type StaticEncode, Type as T, type TOptional } from "@sinclair/typebox";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { NETWORK_PRESETS, NETWORKS, type NetworkName } from "../networks";
import { defaultFundedApproveMinPayment, FundedApproveSchema, fundedApproveConfig } from "./funded-approve";
import { MerchantKeySchema } from "./merchant-keys";
import { WebhooksSchema } from "./webhooks";

// The config is parsed once, here, into the types the service works with: the file and the environment spell
// addresses, keys and amounts as strings; `Config` (decoded by validateConfig) holds viem `Address`es, `Hex`
// keys, bigint amounts and the paymaster signer's account, so no other module casts a config field.

/** An address as configured (its case kept: /config answers it as written). */
const AddressString = T.Unsafe<Address>(T.String({ pattern: "^0x[0-9a-fA-F]{40}$" }));

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

// A format rather than a decode step, so that every bad key is reported with the other problems, not only the first.
FormatRegistry.Set("secp256k1-private-key", (key) => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) return false;
  const scalar = BigInt(key);
  return scalar !== 0n && scalar < SECP256K1_ORDER;
});

/** A secp256k1 private key: refused here if zero or beyond the curve order, since viem's own error quotes the key. */
const PrivateKey = T.Unsafe<Hex>(T.String({ format: "secp256k1-private-key" }));

/** An amount in a token's smallest unit: a decimal string in the file, a bigint in the service. */
const Amount = T.Transform(T.String({ pattern: "^[0-9]{1,78}$" }))
  .Decode((amount) => BigInt(amount))
  .Encode((amount) => amount.toString());
const Url = T.String({ pattern: "^https?://" });

/** A token's minPaymentValue when the file leaves it out. */
export const DEFAULT_MIN_PAYMENT_VALUE = 1n;

// The network names and their facts are the presets' (src/networks): config only says which are enabled and how.
export { NETWORKS, type NetworkName };
/** The chain id each network's config must name. */
export const CHAIN_IDS = Object.fromEntries(NETWORK_PRESETS.map((preset) => [preset.name, preset.chainId])) as Record<
  NetworkName,
  number
>;
/** A network's blockTimeMs when the file leaves it out, by chain id. */
export const DEFAULT_BLOCK_TIME_MS: Record<number, number> = Object.fromEntries(
  NETWORK_PRESETS.map((preset) => [preset.chainId, preset.blockTimeMs]),
);

const TokenFields = T.Object({
  symbol: T.String({ minLength: 1 }),
  address: AddressString,
  decimals: T.Integer({ minimum: 0, maximum: 36 }),
  /** Whether the token has EIP-3009's transferWithAuthorization (x402 pays it directly; checked on-chain at start). */
  eip3009: T.Boolean({ default: false }),
  /** Whether the token has EIP-2612's permit (checked on-chain at start); default false. */
  eip2612: T.Optional(T.Boolean()),
  /** Facilitator fee of a smart-wallet payment: max(minFee, ceil(sum × feeBps / 10000)). */
  feeBps: T.Integer({ minimum: 0, maximum: 10000 }),
  minFee: Amount,
  /** Flat deployment fee per wallet, in this token's smallest unit. */
  deploymentFeePerWallet: Amount,
  /** Smallest `value` an EOA payment may carry (default "1"): a tiny payment still costs the executor a full settle. */
  minPaymentValue: T.Optional(Amount),
  /** Fee of an incognito unshield: max(unshieldMinFee, ceil(withdrawAmount × unshieldFeeBps / 10000)); default feeBps/minFee. */
  unshieldFeeBps: T.Optional(T.Integer({ minimum: 0, maximum: 10000 })),
  unshieldMinFee: T.Optional(Amount),
  /** Fee of a swap selling this token: max(swapMinFee, ceil(sellAmount × swapFeeBps / 10000)); default feeBps/minFee. */
  swapFeeBps: T.Optional(T.Integer({ minimum: 0, maximum: 10000 })),
  swapMinFee: T.Optional(Amount),
  /** Smallest payment a funded approve may onboard (src/config/funded-approve.ts); default 0.1 token. */
  fundedApproveMinPayment: T.Optional(Amount),
});

export const TokenConfigSchema = T.Transform(TokenFields)
  .Decode((token) => ({
    ...token,
    eip2612: token.eip2612 ?? false,
    minPaymentValue: token.minPaymentValue ?? DEFAULT_MIN_PAYMENT_VALUE,
    unshieldFeeBps: token.unshieldFeeBps ?? token.feeBps,
    unshieldMinFee: token.unshieldMinFee ?? token.minFee,
    swapFeeBps: token.swapFeeBps ?? token.feeBps,
    swapMinFee: token.swapMinFee ?? token.minFee,
    fundedApproveMinPayment: token.fundedApproveMinPayment ?? defaultFundedApproveMinPayment(token.decimals),
  }))
  .Encode((token) => token);

/** V3 fee tiers quoted when a V3 router's config leaves them out (Uniswap's; PancakeSwap V3 uses 2500 for 3000). */
export const DEFAULT_V3_FEE_TIERS = [100, 500, 3000, 10000] as const;

/**
 * A whitelisted DEX router as quoting and execution need it: the factory and its pool init-code hash (pair and
 * pool addresses are computed, never looked up), V2's fee in basis points (Uniswap 30, PancakeSwap 25), V3's
 * fee tiers. The relayer must whitelist the router with the same kind (Relayer.setRouter).
 */
const SwapRouter = T.Object({
  /** Shown as a route's `dex` (default "uniswap-v2" / "uniswap-v3"). */
  name: T.Optional(T.String({ minLength: 1, maxLength: 64 })),
  address: AddressString,
  kind: T.Union([T.Literal("v2"), T.Literal("v3")]),
  factory: AddressString,
  initCodeHash: T.Unsafe<Hex>(T.String({ pattern: "^0x[0-9a-fA-F]{64}$" })),
  feeBps: T.Optional(T.Integer({ minimum: 0, maximum: 10000 })),
  feeTiers: T.Optional(T.Array(T.Integer({ minimum: 1, maximum: 2 ** 24 - 1 }), { minItems: 1, maxItems: 8 })),
});

/**
 * Swaps on a network (decisions.md "Swaps"): at most one router per kind, a V3 router with its quoter (both checked
 * with the config's other rules, src/config/load.ts); absent: swaps are off here.
 */
const SwapConfigSchema = T.Transform(
  T.Object({
    routers: T.Array(SwapRouter, { minItems: 1, maxItems: 2 }),
    /** QuoterV2 of the V3 router's deployment (needed when a V3 router is configured). */
    quoter: T.Optional(AddressString),
    /** Middle tokens of two-hop routes. */
    connectors: T.Array(AddressString, { maxItems: 8 }),
    wrappedNative: AddressString,
  }),
)
  .Decode((swap) => ({
    ...swap,
    routers: swap.routers.map((router) => ({
      ...router,
      name: router.name ?? `uniswap-${router.kind}`,
      feeBps: router.feeBps ?? 30,
      feeTiers: router.feeTiers ?? [...DEFAULT_V3_FEE_TIERS],
    })),
  }))
  .Encode((swap) => swap);

const NetworkFields = T.Object({
  chainId: T.Integer({ minimum: 1 }),
  rpcUrls: T.Array(Url, { minItems: 1 }),
  /**
   * Each capability is enabled by its own settings (src/config/capabilities.ts): the relayer for EOA payments; the
   * bundler, factory, paymaster, EntryPoint and paymasterSignerKey together for smart wallets and deployments.
   */
  bundlerUrl: T.Optional(Url),
  contracts: T.Optional(
    T.Object({
      relayer: T.Optional(AddressString),
      factory: T.Optional(AddressString),
      paymaster: T.Optional(AddressString),
      entryPoint: T.Optional(AddressString),
      /** PrivacyPool (incognito shield/unshield); absent: incognito is off on this network. */
      privacyPool: T.Optional(AddressString),
    }),
  ),
  tokens: T.Array(TokenConfigSchema, { minItems: 1 }),
  feeRecipient: AddressString,
  executorKeys: T.Array(PrivateKey, { minItems: 1 }),
  paymasterSignerKey: T.Optional(PrivateKey),
  /** Upper bound on the fee the executors ever pay, in gwei. */
  maxFeePerGasGwei: T.Number({ exclusiveMinimum: 0 }),
  /** Gas limit of one relayer transferWithAuthorization (no estimate round trip per settlement). */
  settleGasLimit: T.Integer({ minimum: 21000 }),
  receiptTimeoutMs: T.Integer({ minimum: 100 }),
  replaceAfterMs: T.Integer({ minimum: 100 }),
  /** An EOA payment's validBefore must be at least this far in the future, or it could expire before it is mined. */
  validBeforeMarginSeconds: T.Integer({ minimum: 0 }),
  /** Bounds on a bundler's gas and fee proposal for sponsored UserOps; a missing field takes the network's default (src/userops/caps.ts). */
  userOpCaps: T.Optional(
    T.Object({
      maxFeePerGasGwei: T.Optional(T.Number({ exclusiveMinimum: 0 })),
      maxTotalGas: T.Optional(T.Integer({ minimum: 21000 })),
      maxCallGasLimit: T.Optional(T.Integer({ minimum: 0 })),
      maxVerificationGasLimit: T.Optional(T.Integer({ minimum: 0 })),
      maxPaymasterVerificationGasLimit: T.Optional(T.Integer({ minimum: 0 })),
      maxPaymasterPostOpGasLimit: T.Optional(T.Integer({ minimum: 0 })),
    }),
  ),
  /** Mined deployment transactions that may fail for one wallet before claims stop retrying it. */
  deployMaxAttempts: T.Integer({ minimum: 1 }),
  /** Wait after a wallet's first failed deployment attempt before a claim sends it again; doubles each time. */
  deployRetryBackoffSeconds: T.Integer({ minimum: 0 }),
  /** Block the pool's leaf indexer starts from on an empty database (the pool's deployment block); default 0. */
  privacyPoolStartBlock: T.Optional(T.Integer({ minimum: 0 })),
  /**
   * Time between blocks, in ms; default the network preset's (bsc 450 since its Fermi upgrade, base 2000). Receipts
   * not answered by the broadcast are polled for at a tenth of it, and a sync send waits at most 4 blocks (2 s min).
   */
  blockTimeMs: T.Optional(T.Integer({ minimum: 50, maximum: 60_000 })),
  /**
   * Broadcast with eth_sendRawTransactionSync (EIP-7966: the receipt in the answer): "auto" (default) asks the
   * first RPC URL once at start whether it serves the method, "always" and "never" skip the question.
   */
  sendRawTransactionSync: T.Optional(T.Union([T.Literal("auto"), T.Literal("always"), T.Literal("never")])),
  /**
   * A WebSocket JSON-RPC URL of the same chain: receipts are asked for when eth_subscribe("newHeads") pushes a block,
   * instead of polling eth_blockNumber (which takes over while the socket is down). Never logged (it may hold a key).
   */
  wsUrl: T.Optional(T.String({ pattern: "^wss?://[^\\s]+$" })),
  /** x402 facilitator bodies on /verify and /settle (scheme exact: EIP-3009 tokens, and any token with Permit2); off when absent. */
  x402: T.Optional(T.Object({ enabled: T.Boolean() })),
  /** Swaps through whitelisted DEX routers; off when absent. */
  swap: T.Optional(SwapConfigSchema),
  /** Funded approves for payers without native coins (src/config/funded-approve.ts); on by default, within a budget. */
  fundedApprove: T.Optional(FundedApproveSchema),
});

/** Adds the paymaster signer's account, derived once from its key (which stays, for the wiring check's message). */
export const NetworkConfigSchema = T.Transform(NetworkFields)
  .Decode(({ contracts, ...network }) => ({
    ...network,
    contracts: contracts ?? {},
    blockTimeMs: network.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS[network.chainId] ?? 2_000,
    sendRawTransactionSync: network.sendRawTransactionSync ?? "auto",
    paymasterSigner: network.paymasterSignerKey ? privateKeyToAccount(network.paymasterSignerKey) : undefined,
    fundedApprove: fundedApproveConfig(network.fundedApprove ?? {}),
    /** The setting as written, for encodeConfig. */
    fundedApproveInput: network.fundedApprove,
  }))
  .Encode(({ paymasterSigner: _, fundedApprove: _funded, fundedApproveInput, ...network }) => ({
    ...network,
    ...(fundedApproveInput ? { fundedApprove: fundedApproveInput } : {}),
  }));

export const ConfigSchema = T.Object({
  mode: T.Union([T.Literal("production"), T.Literal("devnet")]),
  host: T.String({ minLength: 1 }),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  databasePath: T.String({ minLength: 1 }),
  /** PostgreSQL instead of the SQLite file (src/config/database.ts); never echoed: it may hold a password. */
  databaseUrl: T.Optional(T.String({ pattern: "^postgres(ql)?://[^\\s/]+/[^\\s]+$" })),
  adminApiKey: T.String({ minLength: 16 }),
  masterSaltPrefix: T.String({ minLength: 1 }),
  docsBaseUrl: Url,
  rateLimitPerMinute: T.Integer({ minimum: 1 }),
  /** Take the client IP from X-Forwarded-For (only behind a proxy you control). */
  trustProxy: T.Boolean(),
  paymasterValiditySeconds: T.Integer({ minimum: 30 }),
  logRequests: T.Boolean(),
  /**
   * Graceful shutdown (SIGTERM, SIGINT): how long in-flight settles may take to finish before the process exits
   * anyway (what is still sent then is resumed by the next start's reconciliation). Keep it under the grace period
   * of whatever stops the process (Kubernetes: 30 s).
   */
  shutdownTimeoutMs: T.Integer({ minimum: 0 }),
  /** Payers and wallet owners are refused once this many of their settlements reverted on-chain within the window. */
  denyAfterReverts: T.Integer({ minimum: 1 }),
  /** A payer's or owner's revert count is forgotten this long after its last revert. */
  denyWindowSeconds: T.Integer({ minimum: 1 }),
  /**
   * Swaps that reverted because the market moved (a price below the signed minimum, as a front-runner can make it)
   * count apart: this many within the window refuse the payer's or owner's new swaps, never its payments.
   */
  denySwapsAfterReverts: T.Integer({ minimum: 1 }),
  /** A swap-only count is forgotten this long after its last revert. */
  denySwapsWindowSeconds: T.Integer({ minimum: 1 }),
  /** One entry per enabled network, keyed by preset name. */
  networks: T.Object(
    Object.fromEntries(NETWORKS.map((name) => [name, T.Optional(NetworkConfigSchema)])) as Record<
      NetworkName,
      TOptional<typeof NetworkConfigSchema>
    >,
  ),
  /**
   * Executor key leases (several instances on one database, src/chain/key-leases.ts): how long an instance holds a
   * key without renewing it (renewed every third), so how long a dead instance's keys wait before another takes them.
   */
  keyLeaseMs: T.Integer({ minimum: 1_000 }),
  /** How many of each network's executor keys one instance leases; absent: all of them. */
  keyLeasesPerInstance: T.Optional(T.Integer({ minimum: 1 })),
  incognito: T.Optional(
    T.Object({
      /**
       * Serve incognito in production with the committed devnet circuit (src/incognito/trusted-setup.ts): whoever
       * ran its local setup can forge proofs and drain the pool. Default false: such a config does not start.
       */
      allowUntrustedSetup: T.Boolean({ default: false }),
    }),
  ),
  /**
   * Keys merchants send as `x-api-key`: a request carrying one is not held to the per-IP rate limit. A key given
   * as `{ key, payTo }` also lists the payments to its payTo addresses (GET /payments); a bare key does not.
   */
  merchantApiKeys: T.Optional(T.Array(MerchantKeySchema)),
  /**
   * The read-only key of /dashboard and /dashboard/api/* (docs/dashboard.md); the admin key also opens them.
   * Absent: only the admin key does. Production refuses it equal to the admin key or to the devnet's.
   */
  dashboardApiKey: T.Optional(T.String({ minLength: 16 })),
  /** Signed webhooks (docs/webhooks.md): endpoints, each secret from WEBHOOK_SECRET_<ID>, and delivery's pace. */
  webhooks: T.Optional(WebhooksSchema),
  /** What the dashboard shows beyond the database (docs/dashboard.md); every field has a default. */
  dashboard: T.Optional(
    T.Object({
      /** An executor whose native balance is below this (wei) is flagged; default DEFAULT_EXECUTOR_ALERT_WEI. */
      executorAlertWei: T.Optional(T.Partial(T.Record(T.Union(NETWORKS.map((name) => T.Literal(name))), Amount))),
      /** A paymaster whose EntryPoint deposit is below this (wei) is flagged; default DEFAULT_PAYMASTER_ALERT_WEI. */
      paymasterAlertWei: T.Optional(T.Partial(T.Record(T.Union(NETWORKS.map((name) => T.Literal(name))), Amount))),
      /** A transaction's explorer page, `{hash}` replaced; default the network preset's. */
      explorerTxUrl: T.Optional(
        T.Partial(
          T.Record(
            T.Union(NETWORKS.map((name) => T.Literal(name))),
            T.String({ pattern: "^https?://[^\\s]*\\{hash\\}[^\\s]*$" }),
          ),
        ),
      ),
    }),
  ),
});

/** The service's config, decoded: domain types, defaults applied, accounts built. */
export type TokenConfig = StaticDecode<typeof TokenConfigSchema>;
export type NetworkConfig = StaticDecode<typeof NetworkConfigSchema>;
export type SwapConfig = StaticDecode<typeof SwapConfigSchema>;
export type Config = StaticDecode<typeof ConfigSchema>;
/** The same config as the file and the environment spell it (what validateConfig takes, encodeConfig gives). */
export type NetworkConfigInput = StaticEncode<typeof NetworkConfigSchema>;
export type ConfigInput = StaticEncode<typeof ConfigSchema>;
