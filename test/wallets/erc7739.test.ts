import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import { type Address, type Hex, hashMessage, hashTypedData, parseAbi, slice, toHex, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { getEip712Domain } from "viem/actions";
import { signMessage, signTypedData } from "viem/experimental/erc7739";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../support/authorization";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, units } from "./support";

const service = startTestService();
afterAll(() => service.stop());

const erc1271Abi = parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"]);
const MAGIC = "0x1626ba7e";
const INVALID = "0xffffffff";

for (const network of NETWORK_NAMES) {
  describe(`${network}: wallets answer ERC-1271 through ERC-7739 only`, () => {
    const c = chainOf(network);

    /** One owner, two wallets of that owner, and a viem wallet client of the owner's key. */
    async function ownerWithTwoWallets(tokens = 0n) {
      const key = generatePrivateKey();
      const owner = privateKeyToAccount(key);
      const a = await deployFundedWallet(network, tokens, owner);
      const b = await deployFundedWallet(network, tokens, owner);
      return { owner, client: c.walletFor(key), walletA: a.wallet, walletB: b.wallet };
    }

    const isValidSignature = (wallet: Address, hash: Hex, signature: Hex) =>
      c.public.readContract({
        address: wallet,
        abi: erc1271Abi,
        functionName: "isValidSignature",
        args: [hash, signature],
      });

    /** A Permit2-like message: its digest names the token and amount, not the wallet that signs it. */
    const permitLike = () =>
      ({
        domain: { name: "Permit2", chainId: c.info.chainId, verifyingContract: randomAddress() },
        types: {
          Transfer: [
            { name: "token", type: "address" },
            { name: "amount", type: "uint256" },
            { name: "nonce", type: "uint256" },
          ],
        },
        primaryType: "Transfer",
        message: { token: c.token.address, amount: 10n ** 18n, nonce: 1n },
      }) as const;

    test("each wallet exposes its own EIP-712 domain (the clone's address)", async () => {
      const { walletA, walletB } = await ownerWithTwoWallets();
      const domainA = await getEip712Domain(c.public, { address: walletA });
      expect(domainA.domain).toMatchObject({ name: "relay402 Account", version: "1", chainId: c.info.chainId });
      expect(domainA.domain.verifyingContract?.toLowerCase()).toBe(walletA.toLowerCase());
      const domainB = await getEip712Domain(c.public, { address: walletB });
      expect(domainB.domain.verifyingContract?.toLowerCase()).toBe(walletB.toLowerCase());
    });

    test("viem's ERC-7739 typed-data signature for wallet A is valid for A, not for B nor as the owner's own", async () => {
      const { owner, client, walletA, walletB } = await ownerWithTwoWallets();
      const app = permitLike();
      const hash = hashTypedData(app);
      const forA = await signTypedData(client, { account: owner, ...app, verifier: walletA });
      expect(await isValidSignature(walletA, hash, forA)).toBe(MAGIC);
      expect(await isValidSignature(walletB, hash, forA)).toBe(INVALID);
      const inner = slice(forA, 0, 65);
      expect(await verifyTypedData({ address: owner.address, ...app, signature: inner })).toBe(false);
    });

    test("the owner's plain signature of the app's message is refused by every wallet of the owner", async () => {
      const { owner, walletA, walletB } = await ownerWithTwoWallets();
      const app = permitLike();
      const hash = hashTypedData(app);
      const plain = await owner.signTypedData(app);
      expect(await isValidSignature(walletA, hash, plain)).toBe(INVALID);
      expect(await isValidSignature(walletB, hash, plain)).toBe(INVALID);
      expect(await isValidSignature(walletA, hash, await owner.sign({ hash }))).toBe(INVALID);
    });

    test("viem's ERC-7739 personal-message signature for wallet A is valid for A only", async () => {
      const { owner, client, walletA, walletB } = await ownerWithTwoWallets();
      const message = `sign in to example.org, ${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
      const forA = await signMessage(client, { account: owner, message, verifier: walletA });
      expect(await isValidSignature(walletA, hashMessage(message), forA)).toBe(MAGIC);
      expect(await isValidSignature(walletB, hashMessage(message), forA)).toBe(INVALID);
      const plain = await owner.signMessage({ message });
      expect(await isValidSignature(walletA, hashMessage(message), plain)).toBe(INVALID);
    });

    test("a wallet pays through /settle with a viem ERC-7739 authorization; the owner's plain one is refused", async () => {
      const { owner, client, walletA } = await ownerWithTwoWallets(units(network, 10n));
      // The wallet has no gas and no bundler here: anvil sends its approval as the wallet itself.
      await c.test.impersonateAccount({ address: walletA });
      await c.test.setBalance({ address: walletA, value: 10n ** 18n });
      await c.public.waitForTransactionReceipt({
        hash: await c.walletFor(generatePrivateKey()).writeContract({
          account: walletA,
          address: c.token.address,
          abi: erc20Abi,
          functionName: "approve",
          args: [c.info.relayer, units(network, 10n)],
        }),
        pollingInterval: 50,
      });
      await c.test.stopImpersonatingAccount({ address: walletA });

      const to = randomAddress();
      const now = Math.floor(Date.now() / 1000);
      const message = {
        token: c.token.address,
        from: walletA,
        to,
        value: units(network, 3n),
        validAfter: BigInt(now - 60),
        validBefore: BigInt(now + 3600),
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      };
      const typedData = {
        domain: { name: "relay402", version: "1", chainId: c.info.chainId, verifyingContract: c.info.relayer },
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: "TransferWithAuthorization",
        message,
      } as const;
      const body = (signature: Hex) => ({
        paymentPayload: {
          token: message.token,
          payload: {
            authorization: {
              from: walletA,
              to,
              value: message.value.toString(),
              validAfter: Number(message.validAfter),
              validBefore: Number(message.validBefore),
              nonce: message.nonce,
            },
            signature,
          },
        },
        paymentRequirements: { network, relayerContract: c.info.relayer },
      });

      const plain = await service.post("/verify", body(await owner.signTypedData(typedData)));
      expect(plain.status).toBe(200);
      expect(plain.body).toMatchObject({ isValid: false, invalidReason: "signature_error" });

      const nested = body(await signTypedData(client, { account: owner, ...typedData, verifier: walletA }));
      const verified = await service.post("/verify", nested);
      expect(verified.body).toEqual({ isValid: true, payer: walletA });
      const settled = await service.post("/settle", nested);
      expect(settled.status).toBe(200);
      expect(settled.body.success).toBe(true);
      expect(await tokenBalance(network, c.token.address, to)).toBe(units(network, 3n));
      expect(await tokenBalance(network, c.token.address, walletA)).toBe(units(network, 7n));
    });
  });
}
