import { relayerAbi } from "@relay402/client/wire/abis";
import { SWAP_WITH_AUTHORIZATION_TYPE } from "@relay402/client/wire/swap/typed-data";
import { SIGNED_TYPES } from "@relay402/client/wire/transfer-typed-data";
import type { Capability } from "../config/capabilities";
import { MAX_BODY_BYTES } from "../limits";
import type { StatusSources } from "./status-sources";

export const LIMITS = { maxTransactionsPerBatch: 20, maxSaltsPerDeployment: 10, maxFundingPayloads: 10 };

/** Everything a client needs to sign for each enabled network. */
export async function clientConfig(services: StatusSources) {
  const entries = await Promise.all(
    services.networks.all().map(async (network) => {
      const { config } = network;
      const relayer = config.contracts.relayer;
      const serves = (capability: Capability) => network.capabilities.includes(capability);
      const x402Assets = (await services.x402?.assets(network)) ?? [];
      const x402Of = (address: string) => {
        const served = x402Assets.find((asset) => asset.asset.toLowerCase() === address.toLowerCase());
        return served ? { assetTransferMethod: served.assetTransferMethod } : null;
      };
      const [eip712Domain, erc1271GasLimit] = relayer
        ? await Promise.all([
            services
              .relayerFor(network)
              .domain()
              .catch(() => null),
            // Owner-settable on-chain, so read every time rather than cached; null when the chain does not answer.
            network.client
              .readContract({ address: relayer, abi: relayerAbi, functionName: "erc1271GasLimit" })
              .then(Number, () => null),
          ])
        : [null, null];
      return [
        network.name,
        {
          chainId: config.chainId,
          eip712Domain,
          signedType:
            "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          /** viem-ready: signTypedData({ domain: eip712Domain, ...signedTypes.TransferWithAuthorization, message }). */
          signedTypes: SIGNED_TYPES,
          /** An EOA payer approves this spender (the relayer) for the token before its first payment. */
          spender: relayer ?? null,
          /** What this network serves (each capability enabled by its own settings). */
          capabilities: Array.from(network.capabilities),
          contracts: config.contracts,
          feeRecipient: config.feeRecipient,
          tokens: config.tokens.map((token) => ({
            symbol: token.symbol,
            address: token.address,
            decimals: token.decimals,
            eip3009: token.eip3009,
            eip2612: token.eip2612,
            eip712: network.tokenDomain(token.address),
            x402: x402Of(token.address),
            fees: {
              feeBps: token.feeBps,
              minFee: token.minFee.toString(),
              deploymentFeePerWallet: token.deploymentFeePerWallet.toString(),
              unshieldFeeBps: token.unshieldFeeBps,
              unshieldMinFee: token.unshieldMinFee.toString(),
              swapFeeBps: token.swapFeeBps,
              swapMinFee: token.swapMinFee.toString(),
            },
            minPaymentValue: token.minPaymentValue.toString(),
            fundedApproveMinPayment: token.fundedApproveMinPayment.toString(),
          })),
          /** The caps a payer's signed approve must keep for the service to fund and broadcast it. */
          fundedApprove: {
            enabled: config.fundedApprove.enabled,
            maxGas: Number(config.fundedApprove.maxGas),
            maxFeePerGas: config.fundedApprove.maxFeePerGas.toString(),
          },
          /** The privacy pool and the circuit its proofs are for; null when incognito is off on this network. */
          incognito:
            serves("incognito") && config.contracts.privacyPool
              ? { pool: config.contracts.privacyPool, circuitId: services.incognito.circuit.descriptor.id }
              : null,
          /** Swaps: the whitelisted routers and the middle tokens of two-hop routes; null when swaps are off. */
          swap:
            serves("swaps") && config.swap
              ? {
                  routers: config.swap.routers.map((router) => ({
                    name: router.name,
                    address: router.address,
                    kind: router.kind,
                  })),
                  connectors: config.swap.connectors,
                  wrappedNative: config.swap.wrappedNative,
                  signedType: SWAP_WITH_AUTHORIZATION_TYPE,
                }
              : null,
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
