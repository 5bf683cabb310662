import { Type as t } from "@sinclair/typebox";
import { CAPABILITIES } from "../config/capabilities";
import { NETWORKS } from "../networks";

const Address = t.String({ description: "20-byte hex address" });
const Amount = t.String({ description: "decimal integer in the token's smallest unit" });
const TypedField = t.Object({ name: t.String(), type: t.String() });
const SignedType = t.Object({
  primaryType: t.String(),
  types: t.Record(t.String(), t.Array(TypedField)),
});

const Capabilities = t.Array(t.String(), {
  description: `what this network serves, of ${CAPABILITIES.join(", ")}: each capability is enabled by its own settings (docs/operating.md)`,
});

const Eip712Domain = t.Object(
  { name: t.String(), version: t.String(), chainId: t.Integer(), verifyingContract: Address },
  { description: "the relayer's domain (EIP-5267); null when the chain did not answer" },
);

const NetworkClientConfig = t.Object({
  chainId: t.Integer(),
  eip712Domain: t.Union([Eip712Domain, t.Null()]),
  signedType: t.String({ description: "the TransferWithAuthorization type string" }),
  signedTypes: t.Object(
    { TransferWithAuthorization: SignedType, CancelAuthorization: SignedType },
    { description: "viem-ready: signTypedData({ domain: eip712Domain, ...signedTypes.<type>, message })" },
  ),
  capabilities: Capabilities,
  spender: t.Union([Address, t.Null()], {
    description:
      "the address an EOA payer approves for the token before paying: the relayer (null without EOA payments)",
  }),
  contracts: t.Object(
    {
      relayer: t.Optional(Address),
      factory: t.Optional(Address),
      paymaster: t.Optional(Address),
      entryPoint: t.Optional(Address),
      privacyPool: t.Optional(Address),
    },
    { description: "the contracts configured on this network (each capability needs its own)" },
  ),
  feeRecipient: Address,
  tokens: t.Array(
    t.Object({
      symbol: t.String(),
      address: Address,
      decimals: t.Integer(),
      eip3009: t.Boolean({ description: "the token's own EIP-3009; relay402's EOA payments still need an approval" }),
      eip2612: t.Boolean({ description: "the token's own EIP-2612 permit" }),
      eip712: t.Union([t.Object({ name: t.String(), version: t.String() }), t.Null()], {
        description: "the token's own EIP-712 name and version, read from the chain at start (null: it has none)",
      }),
      x402: t.Union(
        [
          t.Object({
            assetTransferMethod: t.Union([t.Literal("eip3009"), t.Literal("permit2")], {
              description:
                "how an x402 payment moves it: the token's own EIP-3009, or Permit2 through x402's exact proxy (the payer approves Permit2 once); a merchant puts it in its price's `extra`",
            }),
          }),
          t.Null(),
        ],
        { description: "how x402 takes this token here (as GET /supported lists it); null: x402 does not" },
      ),
      fees: t.Object({
        feeBps: t.Integer({ description: "smart-wallet payment fee in basis points (EOA payments pay no fee)" }),
        minFee: Amount,
        deploymentFeePerWallet: Amount,
        unshieldFeeBps: t.Integer({ description: "incognito unshield fee in basis points of withdrawAmount" }),
        unshieldMinFee: Amount,
        swapFeeBps: t.Integer({ description: "swap fee in basis points of sellAmount (taken out of it)" }),
        swapMinFee: Amount,
      }),
      minPaymentValue: Amount,
      fundedApproveMinPayment: t.String({
        description:
          "the smallest payment (token's smallest unit) a payer without native coins may make with a funded approve",
      }),
    }),
  ),
  fundedApprove: t.Object(
    {
      enabled: t.Boolean({ description: "whether the service funds and broadcasts payers' signed approves here" }),
      maxGas: t.Integer({ description: "the largest gas limit a funded approve may carry" }),
      maxFeePerGas: t.String({ description: "the largest max fee per gas a funded approve may carry, in wei" }),
    },
    {
      description:
        "A payer without allowance nor native coins signs (without broadcasting) an approve within these caps; the service funds exactly its gas limit × max fee and broadcasts it (docs/payments.md)",
    },
  ),
  incognito: t.Union([
    t.Object(
      { pool: Address, circuitId: t.String({ description: "id of GET /incognito/circuit" }) },
      { description: "the privacy pool; null when incognito is off on this network" },
    ),
    t.Null(),
  ]),
  swap: t.Union([
    t.Object(
      {
        routers: t.Array(
          t.Object({ name: t.String(), address: Address, kind: t.Union([t.Literal("v2"), t.Literal("v3")]) }),
        ),
        connectors: t.Array(Address, { description: "middle tokens of two-hop routes" }),
        wrappedNative: Address,
        signedType: t.String({ description: "the SwapWithAuthorization type string" }),
      },
      { description: "swaps through whitelisted DEX routers; null when swaps are off on this network" },
    ),
    t.Null(),
  ]),
  limits: t.Object({
    validBeforeMarginSeconds: t.Integer(),
    erc1271GasLimit: t.Union([t.Integer(), t.Null()]),
  }),
});

export const ClientConfigSchema = t.Object({
  version: t.String(),
  networks: t.Record(t.String(), NetworkClientConfig, {
    description: `per enabled network, keyed by its name (${NETWORKS.map((name) => `\`${name}\``).join(", ")})`,
  }),
  limits: t.Object({
    maxTransactionsPerBatch: t.Integer(),
    maxSaltsPerDeployment: t.Integer(),
    maxFundingPayloads: t.Integer(),
    maxBodyBytes: t.Integer(),
    rateLimitPerMinute: t.Integer(),
    paymasterValiditySeconds: t.Integer(),
  }),
});

const Up = t.Union([t.Literal("ok"), t.Literal("down")]);
const Ether = t.Union([t.String({ description: "ether units, decimal" }), t.Null()]);

export const HealthSchema = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("down"), t.Literal("draining")]),
  version: t.String(),
  networks: t.Record(
    t.String(),
    t.Object({
      chainId: t.Integer(),
      blockNumber: t.Union([t.Integer(), t.Null()]),
      rpc: Up,
      bundler: t.Optional({ ...Up, description: "absent where smart wallets are not enabled (no bundler)" }),
      capabilities: Capabilities,
      relayer: t.Union([Address, t.Null()], { description: "null where EOA payments are not enabled" }),
      paymaster: t.Union([Address, t.Null()], { description: "null where smart wallets are not enabled" }),
      privacyPool: t.Union([Address, t.Null()], { description: "null when incognito is off on this network" }),
      executors: t.Optional(
        t.Array(t.Object({ address: Address, balance: Ether }), { description: "with the admin key only" }),
      ),
      paymasterDeposit: t.Optional({ ...Ether, description: "with the admin key only (ether units)" }),
      swap: t.Union(
        [
          t.Object({
            status: t.Union([t.Literal("ok"), t.Literal("unavailable")]),
            reason: t.Optional(t.String({ description: "why swaps are off although configured (then degraded)" })),
            revertCauses: t.Optional(
              t.Union([t.Literal("traced"), t.Literal("untraced")], {
                description:
                  "whether the node traces mined transactions, as the start found: untraced, a swap reverted by a same-block front-run cannot be told from the payer's doing and refuses only its swaps",
              }),
            ),
          }),
          t.Null(),
        ],
        { description: "null when swaps are not configured on this network" },
      ),
      unavailable: t.Optional(
        t.Record(t.String(), t.String(), {
          description:
            "capabilities configured here that the start switched off, each with why (then degraded); absent when none",
        }),
      ),
      keyLeases: t.Optional(
        t.Union(
          [
            t.Object({
              status: t.Union([t.Literal("ok"), t.Literal("none_held")]),
              held: t.Optional(t.Integer({ description: "executor keys this instance leases now (admin key only)" })),
              keys: t.Optional(t.Integer({ description: "executor keys configured (admin key only)" })),
              reason: t.Optional(t.String({ description: "why no settle can be sent here now (then degraded)" })),
            }),
            t.Null(),
          ],
          { description: "null when the executor uses every configured key (one instance, no leases)" },
        ),
      ),
    }),
  ),
  database: Up,
});
