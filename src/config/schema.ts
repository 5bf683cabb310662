import { type Static, Type as T } from "@sinclair/typebox";

const Address = T.String({ pattern: "^0x[0-9a-fA-F]{40}$" });
const PrivateKey = T.String({ pattern: "^0x[0-9a-fA-F]{64}$" });
const Uint = T.String({ pattern: "^[0-9]{1,78}$" });
const Url = T.String({ pattern: "^https?://" });

export const NETWORKS = ["bsc", "base"] as const;
export type NetworkName = (typeof NETWORKS)[number];
export const CHAIN_IDS: Record<NetworkName, number> = { bsc: 56, base: 8453 };

export const TokenConfigSchema = T.Object({
  symbol: T.String({ minLength: 1 }),
  address: Address,
  decimals: T.Integer({ minimum: 0, maximum: 36 }),
  eip3009: T.Boolean({ default: false }),
  /** Facilitator fee of a smart-wallet payment: max(minFee, ceil(sum × feeBps / 10000)). */
  feeBps: T.Integer({ minimum: 0, maximum: 10000 }),
  minFee: Uint,
  /** Flat deployment fee per wallet, in this token's smallest unit. */
  deploymentFeePerWallet: Uint,
  /** Smallest `value` an EOA payment may carry (default "1"): a tiny payment still costs the executor a full settle. */
  minPaymentValue: T.Optional(Uint),
});

export const NetworkConfigSchema = T.Object({
  chainId: T.Integer({ minimum: 1 }),
  rpcUrls: T.Array(Url, { minItems: 1 }),
  bundlerUrl: Url,
  contracts: T.Object({ relayer: Address, factory: Address, paymaster: Address, entryPoint: Address }),
  tokens: T.Array(TokenConfigSchema, { minItems: 1 }),
  feeRecipient: Address,
  executorKeys: T.Array(PrivateKey, { minItems: 1 }),
  paymasterSignerKey: PrivateKey,
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
});

export const ConfigSchema = T.Object({
  mode: T.Union([T.Literal("production"), T.Literal("devnet")]),
  host: T.String({ minLength: 1 }),
  port: T.Integer({ minimum: 0, maximum: 65535 }),
  databasePath: T.String({ minLength: 1 }),
  adminApiKey: T.String({ minLength: 16 }),
  masterSaltPrefix: T.String({ minLength: 1 }),
  docsBaseUrl: Url,
  rateLimitPerMinute: T.Integer({ minimum: 1 }),
  /** Take the client IP from X-Forwarded-For (only behind a proxy you control). */
  trustProxy: T.Boolean(),
  paymasterValiditySeconds: T.Integer({ minimum: 30 }),
  logRequests: T.Boolean(),
  /** Payers and wallet owners are refused once this many of their settlements reverted on-chain within the window. */
  denyAfterReverts: T.Integer({ minimum: 1 }),
  /** A payer's or owner's revert count is forgotten this long after its last revert. */
  denyWindowSeconds: T.Integer({ minimum: 1 }),
  networks: T.Object({ bsc: T.Optional(NetworkConfigSchema), base: T.Optional(NetworkConfigSchema) }),
});

export type TokenConfig = Static<typeof TokenConfigSchema>;
export type NetworkConfig = Static<typeof NetworkConfigSchema>;
export type Config = Static<typeof ConfigSchema>;
