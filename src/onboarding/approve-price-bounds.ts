import { encodeFunctionData } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { APPROVE_GAS_FLOOR, type FundedApproveConfig } from "../config/funded-approve";
import { shortReason } from "../logger";
import { type ApproveRefusal, approveAbi, refuseApprove, type SignedApprove } from "./signed-approve";

/** What the chain asks now: the live fee per gas and the approve's own gas estimate. */
export type LivePrice = { liveFee: bigint; estimatedGas: bigint };

const max = (a: bigint, b: bigint) => (a > b ? a : b);
/** value × milli / 1000, rounded up. */
const times = (value: bigint, milli: bigint) => (value * milli + 999n) / 1000n;

/**
 * The live fee per gas: the latest base fee plus the node's priority fee, or `eth_gasPrice` where the base fee is 0
 * (BSC) or absent (a legacy chain).
 */
async function liveFeeOf(network: NetworkRuntime, baseFee: bigint): Promise<bigint> {
  if (baseFee === 0n) return network.client.getGasPrice();
  return baseFee + (await network.client.estimateMaxPriorityFeePerGas());
}

/** The largest max fee and gas limit funded now: max(k × live fee, floor) and max(m × estimate, 70,000). */
export function priceBounds(caps: FundedApproveConfig, price: LivePrice) {
  return {
    maxFeePerGas: max(times(price.liveFee, caps.feeMultiplierMilli), caps.feeFloor),
    gas: max(times(price.estimatedGas, caps.gasMultiplierMilli), APPROVE_GAS_FLOOR),
  };
}

/**
 * The approve priced near what it will really cost, or the refusal. A node only accepts an approve whose sender
 * holds gas × max fee, and the payer keeps what the approve does not burn: an approve priced far above the live fee,
 * or with a gas limit far above what it uses, would hand most of its funding to the payer. `baseFee` is the latest
 * block's (0 where there is none).
 */
export async function approvePriceRefusal(
  network: NetworkRuntime,
  approve: SignedApprove,
  baseFee: bigint,
): Promise<ApproveRefusal | { ok: true; price: LivePrice }> {
  let price: LivePrice;
  try {
    const [liveFee, estimatedGas] = await Promise.all([
      liveFeeOf(network, baseFee),
      network.client.estimateGas({
        account: approve.from,
        to: approve.token,
        data: encodeFunctionData({ abi: approveAbi, functionName: "approve", args: [approve.spender, approve.amount] }),
      }),
    ]);
    price = { liveFee, estimatedGas };
  } catch (error) {
    return refuseApprove("unreadable", `could not price the approve: ${shortReason(error)}`);
  }
  const bounds = priceBounds(network.config.fundedApprove, price);
  if (approve.maxFeePerGas > bounds.maxFeePerGas)
    return refuseApprove(
      "fee",
      `the approve's max fee per gas must be at most ${bounds.maxFeePerGas} wei now (the live fee is ${price.liveFee} wei)`,
    );
  if (approve.gas > bounds.gas)
    return refuseApprove(
      "gas_limit",
      `the approve's gas limit must be at most ${bounds.gas} (it is estimated at ${price.estimatedGas})`,
    );
  return { ok: true, price };
}
