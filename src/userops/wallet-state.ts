import { accountAbi, entryPointAbi, erc20Abi, factoryAbi } from "@relay402/client/wire/abis";
import type { Address, Hex, PublicClient } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { refuse } from "./invalid";

export type WalletState = {
  deployed: boolean;
  /** The code is an EIP-1167 clone of the factory's account implementation: a wallet the paymaster may sponsor. */
  fromFactory: boolean;
  /** Null when the contract has no readable `owner()` (not one of our accounts). */
  owner: Address | null;
  balance: bigint;
  nonce: bigint;
};

/**
 * Everything /wallet/verify reads, in one HTTP round trip: `eth_getCode` and one Multicall3 call
 * (owner, token balance, EntryPoint nonce, the factory's account implementation) issued in the same tick travel as one JSON-RPC batch.
 */
export async function readWalletState(
  client: PublicClient,
  target: { wallet: Address; token: Address; entryPoint: Address; factory: Address },
): Promise<WalletState> {
  const [code, [owner, balance, nonce, implementation]] = await Promise.all([
    client.getCode({ address: target.wallet }),
    client.multicall({
      multicallAddress: MULTICALL3,
      allowFailure: true,
      contracts: [
        { address: target.wallet, abi: accountAbi, functionName: "owner" },
        { address: target.token, abi: erc20Abi, functionName: "balanceOf", args: [target.wallet] },
        { address: target.entryPoint, abi: entryPointAbi, functionName: "getNonce", args: [target.wallet, 0n] },
        { address: target.factory, abi: factoryAbi, functionName: "accountImplementation" },
      ],
    }),
  ]);
  if (balance.status === "failure") throw balance.error;
  if (nonce.status === "failure") throw nonce.error;
  if (implementation.status === "failure") throw implementation.error;
  return {
    deployed: hasCode(code),
    fromFactory: code?.toLowerCase() === cloneCode(implementation.result),
    owner: owner.status === "success" ? owner.result : null,
    balance: balance.result,
    nonce: nonce.result,
  };
}

/** Runtime code of an EIP-1167 minimal proxy to `implementation` (what OpenZeppelin's Clones deploys). */
export const cloneCode = (implementation: Address) =>
  `0x363d3d373d3d3d363d73${implementation.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`;

const hasCode = (code: Hex | undefined) => code !== undefined && code !== "0x";

/**
 * At settle, the wallet must still hold what verify saw: an owner who spent the balance in between would
 * make the paymaster pay for a UserOp that reverts. 400 `validation_error` (`details.field: "balance"`).
 */
export async function assertBalanceStillCovers(
  client: PublicClient,
  target: { wallet: Address; token: Address; amount: bigint },
): Promise<void> {
  let balance: bigint;
  try {
    balance = await client.readContract({
      address: target.token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [target.wallet],
    });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read the wallet's token balance", { reason: shortReason(error) });
  }
  if (balance < target.amount) {
    throw refuse(
      "balance",
      `insufficient token balance at settle: ${balance} < ${target.amount} (the wallet spent it after verify)`,
      { balance: balance.toString(), required: target.amount.toString() },
    );
  }
}
