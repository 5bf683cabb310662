import { describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { encodePath, type Hop } from "@relay402/client/wire/swap/path";
import { SWAP_WITH_AUTHORIZATION_TYPES } from "@relay402/client/wire/swap/typed-data";
import { type Address, keccak256, parseEventLogs, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { freshPayer, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { routerQuote, swapTokensOf } from "../support/dex";

const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
const randomAddress = () => privateKeyToAccount(randomNonce()).address;

describe("devnet DEX: the relayer's swapWithAuthorization through each router", () => {
  for (const network of NETWORK_NAMES) {
    describe(network, () => {
      for (const [kind, hops] of [
        ["v2", (t: ReturnType<typeof swapTokensOf>) => [{ tokenIn: t.m, tokenOut: t.w }]],
        [
          "v3",
          (t: ReturnType<typeof swapTokensOf>) => [
            { tokenIn: t.m, tokenOut: t.w, fee: 500 },
            { tokenIn: t.w, tokenOut: t.dai, fee: 3000 },
          ],
        ],
      ] as const) {
        test(`relayer.swapWithAuthorization through the ${kind} router: recipient gets at least the signed minimum`, async () => {
          const t = swapTokensOf(network);
          const { c } = t;
          const route = hops(t) as Hop[];
          const buyToken = route.at(-1)?.tokenOut as Address;
          const payer = await freshPayer(network);
          const wallet = c.walletFor(payer.key);
          const unit = 10n ** BigInt(c.token.decimals);
          const sellAmount = 20n * unit;
          const fee = unit / 10n;
          await c.public.waitForTransactionReceipt({
            hash: await wallet.writeContract({
              address: t.m,
              abi: erc20Abi,
              functionName: "approve",
              args: [c.info.relayer, sellAmount],
            }),
            pollingInterval: 50,
          });
          const quoted = await routerQuote(network, kind, route, sellAmount - fee);
          const now = Math.floor(Date.now() / 1000);
          const router = kind === "v2" ? t.dex.v2.router : t.dex.v3.router;
          const path = encodePath(kind, route);
          const auth = {
            from: payer.address,
            sellToken: t.m,
            buyToken,
            sellAmount,
            minBuyAmount: (quoted * 9950n) / 10000n,
            recipient: randomAddress(),
            fee,
            router,
            routeHash: keccak256(path),
            validAfter: BigInt(now - 60),
            validBefore: BigInt(now + 600),
            nonce: randomNonce(),
          };
          const signature = await privateKeyToAccount(payer.key).signTypedData({
            domain: { name: "relay402", version: "1", chainId: c.info.chainId, verifyingContract: c.info.relayer },
            types: SWAP_WITH_AUTHORIZATION_TYPES,
            primaryType: "SwapWithAuthorization",
            message: auth,
          });
          const hash = await wallet.writeContract({
            address: c.info.relayer,
            abi: relayerSwapAbi,
            functionName: "swapWithAuthorization",
            args: [auth, signature, { router, path }],
          });
          const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
          expect(receipt.status).toBe("success");
          console.log(`${network} swapWithAuthorization (${kind}, ${route.length} hop) gas: ${receipt.gasUsed}`);

          const received = await tokenBalance(network, buyToken, auth.recipient);
          expect(received).toBe(quoted);
          expect(received).toBeGreaterThanOrEqual(auth.minBuyAmount);
          expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * unit - sellAmount);
          const [executed] = parseEventLogs({ abi: relayerSwapAbi, eventName: "SwapExecuted", logs: receipt.logs });
          expect(executed?.args).toMatchObject({ payer: payer.address, nonce: auth.nonce, fee, buyAmount: received });
          const feeTransfer = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).find(
            (log) => log.address.toLowerCase() === t.m.toLowerCase() && log.args.to === c.info.feeRecipient,
          );
          expect(feeTransfer?.args.value).toBe(fee);
          for (const token of [t.m, t.dai, t.w]) expect(await tokenBalance(network, token, c.info.relayer)).toBe(0n);
          expect(
            await c.public.readContract({
              address: c.info.relayer,
              abi: relayerAbi,
              functionName: "authorizationState",
              args: [payer.address, auth.nonce],
            }),
          ).toBe(true);
        });
      }
    });
  }
});
