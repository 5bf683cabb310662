import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { type Address, getAddress, type Hex, maxUint256, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signTypedData } from "viem/experimental/erc7739";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { devnetKeys } from "../../scripts/devnet/keys";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet } from "../support/wallet";

// A contract payer (the factory's smart wallet, ERC-1271 through ERC-7739) signs a SwapWithAuthorization:
// /swap/verify must take its isValidSignature's word, as /verify does for payments, and a signature the
// wallet refuses must be refused with nothing sent. Judged by balances, nonces and the relayer's nonce state.

const service = startTestService();
afterAll(() => service.stop());

/** Pending nonces of every executor key: unchanged means the service sent nothing. */
const executorNonces = (network: NetworkName) =>
  Promise.all(
    devnetKeys.executors.map((key) =>
      chainOf(network).public.getTransactionCount({ address: privateKeyToAccount(key).address, blockTag: "pending" }),
    ),
  );

/** A factory wallet holding `amount` of the payment token, which approved the relayer for it (as itself). */
async function walletPayer(network: NetworkName, amount: bigint) {
  const c = chainOf(network);
  const ownerKey = generatePrivateKey();
  const { owner, wallet } = await deployFundedWallet(network, amount, privateKeyToAccount(ownerKey));
  // No bundler needed for the one approval: anvil sends it as the wallet.
  await c.test.impersonateAccount({ address: wallet });
  await c.test.setBalance({ address: wallet, value: 10n ** 18n });
  await c.public.waitForTransactionReceipt({
    hash: await c.walletFor(devnetKeys.executors[0] as Hex).writeContract({
      account: wallet,
      address: c.token.address,
      abi: erc20Abi,
      functionName: "approve",
      args: [c.info.relayer, amount],
    }),
    pollingInterval: 50,
  });
  await c.test.stopImpersonatingAccount({ address: wallet });
  return { owner, ownerClient: c.walletFor(ownerKey), wallet };
}

/** The quote's typed data for the wallet as payer, and the body around a signature of it. */
async function quoteFor(network: NetworkName, wallet: Address, sellAmount: bigint, recipient: Address) {
  const c = chainOf(network);
  const quoted = await service.post("/swap/quote", {
    network,
    sellToken: c.token.address,
    buyToken: c.info.dex?.wrappedNative,
    sellAmount: sellAmount.toString(),
    mode: "eoa",
    from: wallet,
    recipient,
  });
  expect(quoted.status).toBe(200);
  const quote = quoted.body;
  const body = (signature: Hex) => ({
    swapPayload: { authorization: quote.typedData.message, signature, path: quote.path },
    swapRequirements: { network, relayerContract: quote.relayerContract },
  });
  return { quote, body };
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: a smart wallet as the payer of an EOA-style swap (ERC-1271)`, () => {
    const c = chainOf(network);
    const unit = 10n ** BigInt(c.token.decimals);

    test("its ERC-7739 signature is accepted by its isValidSignature: verify isValid, settle swaps with exact balances", async () => {
      const sellAmount = 40n * unit;
      const { owner, ownerClient, wallet } = await walletPayer(network, sellAmount);
      const recipient = randomAddress();
      const { quote, body } = await quoteFor(network, wallet, sellAmount, recipient);
      const { domain, types, primaryType, message } = quote.typedData;
      const signature = await signTypedData(ownerClient, {
        account: owner,
        domain,
        types,
        primaryType,
        message,
        verifier: wallet,
      });
      expect(signature.length).toBeGreaterThan(2 + 65 * 2); // not an ECDSA signature: only ERC-1271 can accept it

      const verified = await service.post("/swap/verify", body(signature));
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ isValid: true, payer: wallet });
      expect(BigInt(verified.body.buyAmount)).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));

      const feeBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
      const settled = await service.post("/swap/settle", body(signature));
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ success: true, payer: getAddress(wallet) });
      expect(await tokenBalance(network, c.token.address, wallet)).toBe(0n);
      expect((await tokenBalance(network, c.token.address, c.info.feeRecipient)) - feeBefore).toBe(BigInt(quote.fee));
      const received = await tokenBalance(network, quote.buyToken, recipient);
      expect(received).toBe(BigInt(settled.body.swap.buyAmount));
      expect(received).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
    });

    test("a signature its isValidSignature refuses (the owner's plain one): isValid false, settle 400, nothing sent", async () => {
      const sellAmount = 40n * unit;
      const { owner, wallet } = await walletPayer(network, sellAmount);
      const recipient = randomAddress();
      const { quote, body } = await quoteFor(network, wallet, sellAmount, recipient);
      const { domain, types, primaryType, message } = quote.typedData;
      // The owner's own signature of the same typed data: the wallet accepts only ERC-7739 nested ones.
      const plain = await owner.signTypedData({ domain, types, primaryType, message });
      const nonces = await executorNonces(network);

      const verified = await service.post("/swap/verify", body(plain));
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ isValid: false, payer: wallet, invalidReason: "signature_error" });
      expect(verified.body.invalidMessage).toMatch(/ERC-1271/);
      const settled = await service.post("/swap/settle", body(plain));
      expect([settled.status, settled.body.code]).toEqual([400, "signature_error"]);

      expect(await executorNonces(network)).toEqual(nonces);
      expect(await tokenBalance(network, c.token.address, wallet)).toBe(sellAmount);
      expect(await tokenBalance(network, quote.buyToken, recipient)).toBe(0n);
      expect(
        await c.public.readContract({
          address: c.info.relayer,
          abi: relayerAbi,
          functionName: "authorizationState",
          args: [wallet, message.nonce],
        }),
      ).toBe(false);
    });

    test("a payer whose isValidSignature says yes only in an eth_call (tx.gasprice 0): verify passes, settle refuses, nothing sent", async () => {
      // contracts/test-helpers/GasPriceGatedWallet.sol: its owner's ECDSA signature is valid only at gas price 0,
      // so the check and verify's simulation pass, and only settle's simulation at the executor's real fees tells.
      const owner = await freshPayer(network, { tokens: 0n });
      const ownerClient = c.walletFor(owner.key);
      const deployed = await c.public.waitForTransactionReceipt({
        hash: await ownerClient.deployContract({
          abi: parseAbi(["constructor(address owner_)"]),
          bytecode: forgeArtifact("GasPriceGatedWallet.sol", "GasPriceGatedWallet").bytecode,
          args: [owner.address],
        }),
        pollingInterval: 50,
      });
      const wallet = getAddress(deployed.contractAddress as Address);
      const sellAmount = 40n * unit;
      for (const hash of [
        await ownerClient.writeContract({
          address: c.token.address,
          abi: erc20Abi,
          functionName: "mint",
          args: [wallet, sellAmount],
        }),
        await ownerClient.writeContract({
          address: wallet,
          abi: parseAbi(["function approve(address token, address spender, uint256 amount)"]),
          functionName: "approve",
          args: [c.token.address, c.info.relayer, maxUint256],
        }),
      ]) {
        expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
      }
      const recipient = randomAddress();
      const { quote, body } = await quoteFor(network, wallet, sellAmount, recipient);
      const { domain, types, primaryType, message } = quote.typedData;
      const signed = body(await owner.account.signTypedData({ domain, types, primaryType, message }));
      const nonces = await executorNonces(network);

      expect((await service.post("/swap/verify", signed)).body).toMatchObject({ isValid: true, payer: wallet });
      const settled = await service.post("/swap/settle", signed);
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("signature_error");

      expect(await executorNonces(network)).toEqual(nonces);
      expect(await tokenBalance(network, c.token.address, wallet)).toBe(sellAmount);
      expect(await tokenBalance(network, quote.buyToken, recipient)).toBe(0n);
    });
  });
}
