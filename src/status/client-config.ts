import type { Address } from "viem";
import { relayerAbi } from "../chain/abis";
import type { NetworkRuntime } from "../chain/networks";
import { MAX_BODY_BYTES } from "../limits";
import type { Services } from "../services";

type Domain = { name: string; version: string; chainId: number; verifyingContract: Address };
const domains = new WeakMap<NetworkRuntime, Promise<Domain>>();

/** The relayer's EIP-712 domain, read once through EIP-5267 and cached (a failed read is retried next time). */
export function relayerDomain(network: NetworkRuntime): Promise<Domain> {
  let domain = domains.get(network);
  if (!domain) {
    domain = network.client
      .readContract({
        address: network.config.contracts.relayer,
        abi: relayerAbi,
        functionName: "eip712Domain",
      })
      .then(([, name, version, chainId, verifyingContract]) => ({
        name,
        version,
        chainId: Number(chainId),
        verifyingContract,
      }));
    domain.catch(() => domains.delete(network));
    domains.set(network, domain);
  }
  return domain;
}

export const LIMITS = { maxTransactionsPerBatch: 20, maxSaltsPerDeployment: 10, maxFundingPayloads: 10 };

/** Everything a client needs to sign for each enabled network. */
export async function clientConfig(services: Services) {
  const entries = await Promise.all(
    services.networks.all().map(async (network) => {
      const { config } = network;
      const [eip712Domain, erc1271GasLimit] = await Promise.all([
        relayerDomain(network).catch(() => null),
        // Owner-settable on-chain, so read every time rather than cached; null when the chain does not answer.
        network.client
          .readContract({
            address: config.contracts.relayer,
            abi: relayerAbi,
            functionName: "erc1271GasLimit",
          })
          .then(Number, () => null),
      ]);
      return [
        network.name,
        {
          chainId: config.chainId,
          eip712Domain,
          signedType:
            "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          contracts: config.contracts,
          feeRecipient: config.feeRecipient,
          tokens: config.tokens.map((token) => ({
            symbol: token.symbol,
            address: token.address,
            decimals: token.decimals,
            eip3009: token.eip3009,
            fees: {
              feeBps: token.feeBps,
              minFee: token.minFee.toString(),
              deploymentFeePerWallet: token.deploymentFeePerWallet.toString(),
            },
            minPaymentValue: token.minPaymentValue.toString(),
          })),
          /** EOA payments: validBefore at least this far ahead; gas a contract payer's ERC-1271 check may use. */
          limits: { validBeforeMarginSeconds: config.validBeforeMarginSeconds, erc1271GasLimit },
        },
      ] as const;
    }),
  );
  return {
    version: services.version,
    networks: Object.fromEntries(entries),
    limits: {
      ...LIMITS,
      maxBodyBytes: MAX_BODY_BYTES,
      rateLimitPerMinute: services.config.rateLimitPerMinute,
      paymasterValiditySeconds: services.config.paymasterValiditySeconds,
    },
  };
}
