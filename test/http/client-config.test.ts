import { afterAll, describe, expect, test } from "bun:test";
import { relayerAbi } from "@relay402/client/wire/abis";
import { erc20Abi, type Hex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

const randomNonce = () => toHex(crypto.getRandomValues(new Uint8Array(32)));

describe("GET /config is enough to pay and to cancel", () => {
  test("every existing field is still there, next to signedTypes and spender", async () => {
    const { body } = await service.get("/config");
    const bsc = body.networks.bsc;
    for (const field of ["chainId", "eip712Domain", "signedType", "contracts", "feeRecipient", "tokens", "limits"]) {
      expect(bsc).toHaveProperty(field);
    }
    expect(bsc.spender).toBe(bsc.contracts.relayer);
    expect(Object.keys(bsc.signedTypes)).toEqual(["TransferWithAuthorization", "CancelAuthorization"]);
    expect(bsc.signedTypes.TransferWithAuthorization.primaryType).toBe("TransferWithAuthorization");
  });

  for (const network of NETWORK_NAMES) {
    test(`${network}: a payment signed with only /config's domain, types and spender settles`, async () => {
      const net = (await service.get("/config")).body.networks[network];
      const c = chainOf(network);
      const payer = await freshPayer(network);
      const token = net.tokens[0].address;
      const value = 10n ** BigInt(net.tokens[0].decimals);
      const approve = await c.walletFor(payer.key).writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [net.spender, value],
      });
      await c.public.waitForTransactionReceipt({ hash: approve, pollingInterval: 50 });
      const to = randomAddress();
      const now = Math.floor(Date.now() / 1000);
      const authorization = {
        from: payer.address,
        to,
        value: value.toString(),
        validAfter: now - 60,
        validBefore: now + 600,
        nonce: randomNonce(),
      };
      const signature = await privateKeyToAccount(payer.key).signTypedData({
        domain: net.eip712Domain,
        ...net.signedTypes.TransferWithAuthorization,
        message: { ...authorization, token },
      });
      const body = {
        paymentPayload: { token, payload: { authorization, signature } },
        paymentRequirements: { network, relayerContract: net.contracts.relayer },
      };
      expect((await service.post("/verify", body)).body).toEqual({ isValid: true, payer: payer.address });
      expect((await service.post("/settle", body)).body.success).toBe(true);
      expect(await tokenBalance(network, token, to)).toBe(value);
    });

    test(`${network}: a cancellation signed with /config's CancelAuthorization type is accepted on-chain`, async () => {
      const net = (await service.get("/config")).body.networks[network];
      const c = chainOf(network);
      const payer = await freshPayer(network, { tokens: 0n });
      const nonce: Hex = randomNonce();
      const signature = await privateKeyToAccount(payer.key).signTypedData({
        domain: net.eip712Domain,
        ...net.signedTypes.CancelAuthorization,
        message: { authorizer: payer.address, nonce },
      });
      const hash = await c.walletFor(payer.key).writeContract({
        address: net.contracts.relayer,
        abi: relayerAbi,
        functionName: "cancelAuthorization",
        args: [payer.address, nonce, signature],
      });
      const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
      const used = await c.public.readContract({
        address: net.contracts.relayer,
        abi: relayerAbi,
        functionName: "authorizationState",
        args: [payer.address, nonce],
      });
      expect(used).toBe(true);
    });
  }
});
