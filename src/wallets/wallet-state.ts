import type { Address, Hex, PublicClient } from "viem";
import { accountAbi, entryPointAbi, erc20Abi } from "../chain/abis";
import { MULTICALL3 } from "../chain/addresses";

export type WalletState = {
  deployed: boolean;
  /** Null when the contract has no readable `owner()` (not one of our accounts). */
  owner: Address | null;
  balance: bigint;
  nonce: bigint;
};

/**
 * Everything /wallet/verify reads, in one HTTP round trip: `eth_getCode` and one Multicall3 call
 * (owner, token balance, EntryPoint nonce) issued in the same tick travel as one JSON-RPC batch.
 */
export async function readWalletState(
  client: PublicClient,
  target: { wallet: Address; token: Address; entryPoint: Address },
): Promise<WalletState> {
  const [code, [owner, balance, nonce]] = await Promise.all([
    client.getCode({ address: target.wallet }),
    client.multicall({
      multicallAddress: MULTICALL3,
      allowFailure: true,
      contracts: [
        { address: target.wallet, abi: accountAbi, functionName: "owner" },
        { address: target.token, abi: erc20Abi, functionName: "balanceOf", args: [target.wallet] },
        { address: target.entryPoint, abi: entryPointAbi, functionName: "getNonce", args: [target.wallet, 0n] },
      ],
    }),
  ]);
  if (balance.status === "failure") throw balance.error;
  if (nonce.status === "failure") throw nonce.error;
  return {
    deployed: hasCode(code),
    owner: owner.status === "success" ? owner.result : null,
    balance: balance.result,
    nonce: nonce.result,
  };
}

const hasCode = (code: Hex | undefined) => code !== undefined && code !== "0x";
