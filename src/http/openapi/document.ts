import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { ERROR_EXAMPLE, EXAMPLES } from "./examples";
import { type Alternative, X402_ALTERNATIVES } from "./x402";

/** Every route is also served under this prefix; the document lists each route once, without it. */
export const ALIAS_PREFIX = "/api/v1";

const DESCRIPTION = `Payment facilitator for ERC-20 payments on BNB Chain (\`bsc\`) and Base (\`base\`).

Every route below is also served under \`${ALIAS_PREFIX}\` (for example \`${ALIAS_PREFIX}/verify\`), with the same
body and answer. Requests and answers are JSON. Errors share one envelope \`{ code, message, doc_url, details? }\`;
the codes are listed in the repository's \`docs/errors.md\`. Amounts are decimal strings in the token's smallest
unit. \`GET /config\` gives everything a client signs with: the relayer's EIP-712 domain, viem-ready types, the
spender to approve, tokens, fees and limits.`;

/** One description per flow: what a client does, in order. */
const TAGS = [
  {
    name: "EOA payments",
    description: `A payer with an ordinary key pays once per signature.
1. Once per token: \`approve(spender, amount)\` on the token, where \`spender\` is \`GET /config\` → \`networks.<name>.spender\` (the relayer). \`eip3009\` on a token does not remove this step: the relayer pulls with \`transferFrom\`.
2. Sign \`TransferWithAuthorization\` with viem's \`signTypedData({ domain: eip712Domain, ...signedTypes.TransferWithAuthorization, message })\` (no fee: the payment moves exactly \`value\`).
3. \`POST /verify\` (optional: checks without sending) and \`POST /settle\` (sends; idempotent per network, payer and nonce).
A merchant checks \`to\` and \`value\` itself: the service settles what the payer signed.
To cancel an unused authorization, sign \`CancelAuthorization\` (same domain) and call the relayer's \`cancelAuthorization\`.`,
  },
  {
    name: "Smart wallet payments",
    description: `A wallet deployed by this service's factory pays a batch of up to 20 transfers of one token, gas sponsored.
1. \`POST /wallet/verify\` builds the UserOp (the batch plus one fee to the fee recipient, \`feeAmount\`) and answers it unsigned with its \`userOpHash\`.
2. Check that \`userOp\` pays what you asked (its call data is approve + \`payBatch\`), then sign \`userOpHash\` with the owner's key.
3. \`POST /wallet/settle\` with the unchanged UserOp and the signature; it is sent at most once.`,
  },
  {
    name: "Wallet deployment",
    description: `Counterfactual wallets, deployed and optionally funded for a fee (\`deploymentFeePerWallet\`).
1. \`POST /deploy/quote\`: wallet addresses, fee, fee recipient and relayer for an owner's salts.
2. EOA payer: sign the fee (and each funding) as \`TransferWithAuthorization\`s, \`POST /deploy/verify\`, then \`POST /deploy/settle\`. Smart-wallet payer: \`POST /deploy/wallet/verify\`, sign \`userOpHash\`, \`POST /deploy/wallet/settle\`. These four need the admin key (\`x-admin-api-key\`).
3. \`GET /wallet/{owner}\` shows the state; \`POST /wallet/claim\` retries what is pending.`,
  },
  {
    name: "Swaps",
    description: `Exact-in swaps on the whitelisted DEX routers, gas paid by the service, the fee taken out of the sold token.
1. \`POST /swap/quote\` for the best route, \`fee\`, \`buyAmount\` and \`minBuyAmount\` (\`mode: "eoa"\` with \`from\` adds the typed data to sign).
2. Once per sell token: \`approve(relayer, amount)\`. Sign \`SwapWithAuthorization\` on the relayer's domain: it binds the minimum output and the recipient.
3. \`POST /swap/verify\` (simulates the swap, answers \`buyAmount\`) and \`POST /swap/settle\` (sends it on the best route now; idempotent per network, payer and nonce). The relayer pays the recipient at least \`minBuyAmount\` or reverts.

Smart wallet: \`POST /wallet/swap/verify\` quotes, simulates and answers the sponsored UserOp (approve + \`Relayer.swapBatch\` with the minimum and the recipient); the owner signs \`userOpHash\`; \`POST /wallet/swap/settle\` checks the price again, sends it at most once and answers \`swap\` from the relayer's \`SwapExecuted\`.`,
  },
  {
    name: "x402",
    description: `relay402 is also an x402 facilitator: \`POST /verify\` and \`POST /settle\` take x402 v1 and v2 bodies next to the interface's own, told apart by the top-level \`x402Version\`, and answer in x402's shapes (always 200; 413 and 429 keep the error envelope). Point x402's \`HTTPFacilitatorClient\` at this service.
\`GET /supported\` lists exactly the kinds served (scheme \`exact\` on the networks with x402 enabled) and the executors that send the transactions. A merchant calling for all its buyers from one address sends its key as \`x-api-key\` (configured \`merchantApiKeys\`), which lifts the per-IP rate limit.`,
  },
  {
    name: "Incognito",
    description: `A privacy pool per network: shield deposits a hidden note, unshield spends one with a zero-knowledge proof (made by the client) to a visible address, leaving a change note.
1. Make a note (\`nullifier\`, \`secret\`), \`POST /wallet/incognito/verify\` with \`{ type: "shield", token, amount, precommitment }\`, check the UserOp shields exactly that, sign \`userOpHash\`, \`POST /wallet/incognito/settle\`.
2. To spend: read the tree (\`GET /incognito/{network}/leaves\`) and the circuit (\`GET /incognito/circuit\`), prove locally with \`feeRecipient\` of \`/config\` and a fee of at least \`max(unshieldMinFee, ceil(withdrawAmount × unshieldFeeBps / 10000))\`, then verify and settle an unshield from any wallet of the factory (preferably a fresh one).`,
  },
  { name: "Utility", description: "Health, and the client configuration every flow starts from (`GET /config`)." },
];

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { summary: string; value: unknown }> };
type Content = Record<string, Media>;
type Operation = {
  description?: string;
  requestBody?: { content?: Content };
  responses?: Record<string, { content?: Content }>;
};

/** The route's own schema and example, then each alternative: `oneOf` the schemas, one named example each. */
function withAlternatives(media: Media, own: string, alternatives: Record<string, Alternative>) {
  const schemas = [...new Set(Object.values(alternatives).map((alternative) => alternative.schema))];
  media.schema = { oneOf: [media.schema, ...schemas] };
  media.examples = {
    relay402: { summary: own, value: media.example },
    ...Object.fromEntries(
      Object.entries(alternatives).map(([name, { summary, example }]) => [name, { summary, value: example }]),
    ),
  };
  delete media.example;
}

/** What the generator reads of an app (its `getGlobal…` methods are protected in Elysia's types). */
type RouteSource = {
  getGlobalDefinitions?(): unknown;
  getGlobalRoutes(): { hooks?: { parse?: { fn: unknown }[] } }[];
};

/**
 * The app's routes as the generator should see them: without the app's own JSON parse hook (src/http/app.ts), for
 * which it would list no content type at all; the request bodies then get Elysia's defaults, trimmed to JSON below.
 */
function documentedRoutes(app: AnyElysia) {
  const source = app as unknown as RouteSource;
  const documented: RouteSource = {
    getGlobalDefinitions: () => source.getGlobalDefinitions?.(),
    getGlobalRoutes: () =>
      source.getGlobalRoutes().map((route) => {
        const parse = route.hooks?.parse?.filter((hook) => typeof hook.fn !== "function");
        return { ...route, hooks: { ...route.hooks, parse: parse?.length ? parse : undefined } };
      }),
  };
  return documented as unknown as AnyElysia;
}

/** The OpenAPI document: each route once, JSON bodies only, an example on every body. */
export function buildDocument(app: AnyElysia, version: string) {
  const { paths, components } = toOpenAPISchema(documentedRoutes(app), {
    paths: [new RegExp(`^${ALIAS_PREFIX}(/|$)`)],
  });
  for (const [path, operations] of Object.entries(paths as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const key = `${method.toUpperCase()} ${path}`;
      const examples = EXAMPLES[key];
      const alternatives = X402_ALTERNATIVES[key];
      if (alternatives) operation.description = `${operation.description ?? ""} ${alternatives.note}`.trim();
      const requestContent = operation.requestBody?.content;
      if (requestContent) {
        // Elysia also lists form encodings for every object body; the service is JSON only.
        for (const type of Object.keys(requestContent)) if (type !== "application/json") delete requestContent[type];
        const json = requestContent["application/json"];
        if (json && examples?.request !== undefined) json.example = examples.request;
        if (json && alternatives) withAlternatives(json, "relay402's own body", alternatives.request);
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.["application/json"];
        if (!json) continue;
        const example = examples?.responses?.[status] ?? (Number(status) >= 400 ? ERROR_EXAMPLE : undefined);
        if (example !== undefined) json.example = example;
        const answers = alternatives?.responses[status];
        if (answers) withAlternatives(json, "relay402's own answer", answers);
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: { title: "relay402", version, description: DESCRIPTION },
    tags: TAGS,
    paths,
    components: {
      ...components,
      securitySchemes: {
        adminApiKey: { type: "apiKey", in: "header", name: "x-admin-api-key" },
        merchantApiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "Optional: a configured merchant key lifts the per-IP rate limit.",
        },
      },
    },
  };
}
