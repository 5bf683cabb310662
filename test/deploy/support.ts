import { type Address, type Hex, toHex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress as randomOwner } from "../support/chain";
import type { startTestService } from "../support/service";

export type Service = ReturnType<typeof startTestService>;

export { approveRelayer, randomOwner };

export const randomSalt = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));
export const adminHeaders = (service: Service) => ({ "x-admin-api-key": service.config.adminApiKey });

/** A client of the EOA flow: quote, then sign the fee and one funding payload per wallet. */
export async function eoaDeployment(
  service: Service,
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
