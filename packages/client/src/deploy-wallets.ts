import { type Address, type Hex, isAddressEqual, type PublicClient } from "viem";
import { approveRelayer } from "./approve-relayer.js";
import { assertUserOpIsPayment } from "./check-user-op.js";
import type { Relay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";
import { getNetworkConfig, type NetworkConfig, tokenOf } from "./get-config.js";
import { signTransferAuthorization } from "./sign-authorization.js";
import type {
  DeploymentQuote,
  DeploymentSettleResult,
  EoaDeploymentVerifyResult,
  NetworkName,
  SignerClient,
  WalletDeploymentVerifyResult,
} from "./types.js";
import { signedUserOp } from "./wallet-payment.js";
import { factoryAbi } from "./wire/abis.js";

export type DeploymentRequest = {
  network: NetworkName;
  /** Owner of the new wallets. */
  owner: Address;
  /** One wallet per salt (1 to 10). */
  salts: readonly Hex[];
  /** The token the fee (and any funding) is paid in. */
  token: Address;
  /** Tokens sent to each new wallet, one amount per salt, each above zero; none when absent. */
  fundingAmounts?: readonly bigint[];
  /** Reads the factory, to check the wallet addresses the service answers. */
  publicClient: PublicClient;
};

/** `/deploy/quote` (public): the wallets' addresses, the fee (`deploymentFeePerWallet` × wallets) and where it goes. */
export function quoteDeployment(
  client: Relay402Client,
  request: Omit<DeploymentRequest, "fundingAmounts" | "publicClient">,
) {
  return client.post<DeploymentQuote>("/deploy/quote", {
    network: request.network,
    deployment: { ownerAddress: request.owner, salts: request.salts, token: request.token },
  });
}

/**
 * Deployment paid by an EOA (admin key needed): quote, check it against /config and the factory, approve the
 * relayer for fee + fundings if short, sign the fee payload (to the fee recipient) and one funding payload per
 * wallet, /deploy/verify, /deploy/settle (idempotent, retried while pending or unreachable).
 */
export async function deployWalletsFromEoa(
  client: Relay402Client,
  request: DeploymentRequest & { payer: SignerClient },
): Promise<{ quote: DeploymentQuote; verify: EoaDeploymentVerifyResult; settlement: DeploymentSettleResult }> {
  const config = await getNetworkConfig(client, request.network);
  const quote = await quoteDeployment(client, request);
  const fee = expectedFee(config, request);
  if (BigInt(quote.deploymentFee) !== fee || !isAddressEqual(quote.feeRecipient as Address, config.feeRecipient)) {
    throw new Relay402ClientError("unexpected_response", "the quote's fee or recipient is not the one of /config", {
      deploymentFee: quote.deploymentFee,
      feeRecipient: quote.feeRecipient,
    });
  }
  const wallets = await assertWalletAddresses(config, request, quote.wallets);
  const fundings = request.fundingAmounts ?? [];
  await approveRelayer({
    signer: request.payer,
    publicClient: request.publicClient,
    token: request.token,
    relayer: config.contracts.relayer,
    amount: fundings.reduce((sum, amount) => sum + amount, fee),
  });
  const sign = (to: Address, value: bigint) =>
    signTransferAuthorization({ signer: request.payer, config, token: request.token, to, value });
  const paymentPayload = [
    await sign(config.feeRecipient, fee),
    ...(await Promise.all(fundings.map((amount, i) => sign(wallets[i] as Address, amount)))),
  ];
  const paymentRequirements = {
    network: request.network,
    relayerContract: config.contracts.relayer,
    deployment: {
      ownerAddress: request.owner,
      salts: request.salts,
      fundingRequested: request.fundingAmounts !== undefined,
      token: request.token,
    },
  };
  const verify = await client.post<EoaDeploymentVerifyResult>(
    "/deploy/verify",
    { paymentPayload, paymentRequirements },
    { admin: true },
  );
  if (!verify.isValid) {
    throw new Relay402ClientError(
      (verify.invalidReason ?? "payment_verification_error") as Relay402ClientError["code"],
      verify.invalidMessage ?? "deployment payment is not valid",
    );
  }
  const settlement = await client.post<DeploymentSettleResult>(
    "/deploy/settle",
    { paymentPayload, paymentRequirements, wallets: verify.wallets },
    { admin: true, idempotent: true },
  );
  return { quote, verify, settlement };
}

/**
 * Deployment paid by a smart wallet (admin key needed): /deploy/wallet/verify builds a sponsored UserOp paying
 * the fee and fundings; the client checks it (sender, callData, hash) before the paying wallet's owner signs,
 * then /deploy/wallet/settle.
 */
export async function deployWalletsFromWallet(
  client: Relay402Client,
  request: DeploymentRequest & { payerWallet: Address; payerOwner: SignerClient },
): Promise<{ verify: WalletDeploymentVerifyResult; settlement: DeploymentSettleResult }> {
  const config = await getNetworkConfig(client, request.network);
  const paymentRequirements = {
    network: request.network,
    deployment: {
      ownerAddress: request.owner,
      salts: request.salts,
      token: request.token,
      payerAddress: request.payerWallet,
      ...(request.fundingAmounts ? { fundingAmounts: request.fundingAmounts.map(String) } : {}),
    },
  };
  const verify = await client.post<WalletDeploymentVerifyResult>(
    "/deploy/wallet/verify",
    { paymentRequirements },
    { admin: true },
  );
  const wallets = await assertWalletAddresses(config, request, verify.wallets);
  const fundings = (request.fundingAmounts ?? [])
    .map((amount, i) => ({ to: wallets[i] as Address, amount }))
    .filter((funding) => funding.amount > 0n);
  assertUserOpIsPayment(verify.userOp, verify.userOpHash, {
    sender: request.payerWallet,
    token: request.token,
    relayer: config.contracts.relayer,
    paymaster: config.contracts.paymaster,
    entryPoint: config.contracts.entryPoint,
    chainId: config.chainId,
    payments: [{ to: config.feeRecipient, amount: expectedFee(config, request) }, ...fundings],
  });
  const settlement = await client.post<DeploymentSettleResult>(
    "/deploy/wallet/settle",
    {
      ...(await signedUserOp(request.payerOwner, verify.userOp, verify.userOpHash)),
      paymentRequirements,
      wallets: verify.wallets,
    },
    { admin: true, idempotent: true },
  );
  return { verify, settlement };
}

function expectedFee(config: NetworkConfig, request: Pick<DeploymentRequest, "token" | "salts">): bigint {
  return BigInt(tokenOf(config, request.token).fees.deploymentFeePerWallet) * BigInt(request.salts.length);
}

/** The service's wallet list must be the factory's addresses of (owner, salt), in the order of the salts. */
async function assertWalletAddresses(
  config: NetworkConfig,
  request: DeploymentRequest,
  answered: readonly { address: string; salt: string }[],
): Promise<Address[]> {
  const expected = await Promise.all(
    request.salts.map((salt) =>
      request.publicClient.readContract({
        address: config.contracts.factory,
        abi: factoryAbi,
        functionName: "getAddress",
        args: [request.owner, salt],
      }),
    ),
  );
  const matches =
    answered.length === expected.length &&
    expected.every((address, i) => isAddressEqual(address, answered[i]?.address as Address));
  if (!matches) {
    throw new Relay402ClientError("unexpected_response", "the service's wallet addresses are not the factory's", {
      field: "wallets",
    });
  }
  return expected;
}
