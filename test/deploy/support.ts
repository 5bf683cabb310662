import { expect } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import { type Address, type Hex, toHex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { createDeploymentStore } from "../../src/deploy/deployment-store-sqlite";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress as randomOwner } from "../support/chain";
import type { startTestService } from "../support/service";
import { deployFundedWallet } from "../support/wallet";

export type Service = ReturnType<typeof startTestService>;

export { approveRelayer, randomOwner };

export const randomSalt = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));
export const adminHeaders = (service: { config: { adminApiKey: string } }) => ({
  "x-admin-api-key": service.config.adminApiKey,
});

/** A client of the EOA flow: quote, then sign the fee and one funding payload per wallet. */
export async function eoaDeployment(
  service: { post(path: string, body: unknown): Promise<{ status: number; body: any }> },
  options: {
    network: NetworkName;
    salts: Hex[];
    funding?: bigint[];
    owner?: Address;
    payer?: Awaited<ReturnType<typeof freshPayer>>;
    approve?: boolean;
  },
) {
  const c = chainOf(options.network);
  const owner = options.owner ?? randomOwner();
  const payer = options.payer ?? (await freshPayer(options.network));
  const quote = await service.post("/deploy/quote", {
    network: options.network,
    deployment: { ownerAddress: owner, salts: options.salts, token: c.token.address },
  });
  if (quote.status !== 200) throw new Error(`quote failed: ${JSON.stringify(quote.body)}`);
  const fee = BigInt(quote.body.deploymentFee);
  const fee0 = await signedPayment({
    network: options.network,
    key: payer.key,
    to: quote.body.feeRecipient,
    value: fee,
  });
  const fundings = await Promise.all(
    (options.funding ?? []).map((value, i) =>
      signedPayment({ network: options.network, key: payer.key, to: quote.body.wallets[i].address, value }),
    ),
  );
  const total = fee + (options.funding ?? []).reduce((sum, value) => sum + value, 0n);
  if (options.approve !== false) await approveRelayer(options.network, payer.key, total);
  const body = {
    paymentPayload: [fee0.paymentPayload, ...fundings.map((f) => f.paymentPayload)],
    paymentRequirements: {
      network: options.network,
      relayerContract: c.info.relayer,
      deployment: {
        ownerAddress: owner,
        salts: options.salts,
        fundingRequested: options.funding !== undefined,
        token: c.token.address,
      },
    },
  };
  return {
    c,
    owner,
    payer,
    quote: quote.body,
    fee,
    total,
    body,
    wallets: quote.body.wallets as { address: Address; salt: Hex; owner: Address; fundingAmount: string }[],
  };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(25);
  }
}

/** A hash is recorded before its broadcast: wait until the node has the transaction too. */
export const inMempool = async (network: NetworkName, hash: Hex | null | undefined) =>
  !!hash &&
  (await chainOf(network)
    .public.getTransaction({ hash })
    .then(
      () => true,
      () => false,
    ));

/** A client of the smart-wallet flow: a funded paying wallet, verify, and its owner's signature over the UserOp. */
export async function walletDeployment(
  service: Pick<Service, "post" | "config">,
  network: NetworkName,
  fundingAmounts: bigint[],
) {
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);
  const payer = await deployFundedWallet(network, 100n * unit);
  const owner = randomOwner();
  const paymentRequirements = {
    network,
    deployment: {
      ownerAddress: owner,
      salts: fundingAmounts.map(() => randomSalt()),
      token: c.token.address,
      payerAddress: payer.wallet,
      fundingAmounts: fundingAmounts.map(String),
    },
  };
  const verify = await service.post("/deploy/wallet/verify", { paymentRequirements }, adminHeaders(service));
  expect(verify.status).toBe(200);
  const hash = verify.body.userOpHash as Hex;
  const signature = await payer.owner.signMessage({ message: { raw: hash } });
  return {
    payer: payer.wallet,
    /** The paying wallet's owner, who can sign other UserOps of that wallet. */
    payerOwner: payer.owner,
    owner,
    hash,
    fee: BigInt(verify.body.deploymentFee),
    total: BigInt(verify.body.totalFees),
    wallets: verify.body.wallets as { address: Address }[],
    body: {
      userOp: { ...verify.body.userOp, signature },
      signature,
      paymentRequirements,
      wallets: verify.body.wallets,
    },
  };
}

/** The EntryPoint nonce of a paying wallet: it moves once per UserOp that executed. */
export const entryPointNonce = (network: NetworkName, wallet: Address) => {
  const c = chainOf(network);
  return c.public.readContract({
    address: c.info.entryPoint,
    abi: entryPointAbi,
    functionName: "getNonce",
    args: [wallet, 0n],
  });
};

/** True once the bundler has put the UserOp in a bundle transaction that the node holds. */
export const userOpSubmitted = (network: NetworkName, hash: Hex) => async () => {
  const response = await fetch(chainOf(network).info.bundlerUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "pimlico_getUserOperationStatus", params: [hash] }),
  });
  const { result } = (await response.json()) as { result?: { status: string; transactionHash: Hex | null } };
  return result?.status === "submitted" && (await inMempool(network, result.transactionHash));
};

/** Runtime code that reverts every call: swapped in with anvil_setCode to make a contract fail for a moment. */
export const REVERTING_CODE: Hex = "0x60006000fd";

export const issuedStatus = async (service: Service, hash: Hex) =>
  (await service.services.wallets.store.find(hash))?.status;

/** The service's deployment records, read synchronously from its SQLite file (the service's store is async). */
export const recordsOf = (service: Service) => createDeploymentStore(service.db);
export const batchOf = (service: Service, payer: Address) => recordsOf(service).batchesFor({ payer })[0];
export const rowsOf = (service: Service, payer: Address) => {
  const batch = batchOf(service, payer);
  return batch ? recordsOf(service).walletsOf(batch.id) : [];
};
export const hasCode = async (network: NetworkName, address: Address) =>
  ((await chainOf(network).public.getCode({ address })) ?? "0x").length > 2;
export const unitOf = (network: NetworkName) => 10n ** BigInt(chainOf(network).token.decimals);
