import { type Address, getAddress, maxUint256 } from "viem";
import { assertOwnerNotDenied, type DenyCounters } from "../deny/deny-counters";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import type { IssuedUserOpStore } from "../userops/issued-user-op-store";
import { buildSponsoredUserOp } from "../userops/sponsor";
import { type RpcUserOp, toRpcUserOp, userOpHash } from "../userops/user-operation";
import { walletPaymentFee } from "./fee";
import type { WalletNetwork } from "./network-context";
import { walletPaymentCallData } from "./payment-call";
import { readWalletState, type WalletState } from "./wallet-state";

export const MAX_WALLET_TRANSACTIONS = 20;

export type WalletVerifyRequest = {
  walletAddress: string;
  transactions: { to: string; amount: string; token: string }[];
};

export type WalletVerifyResponse = {
  isValid: true;
  payer: Address;
  userOp: RpcUserOp;
  userOpHash: `0x${string}`;
  feeAmount: string;
  totalAmount: string;
};

/** What settle needs to know about an issued payment besides the UserOp itself. */
export type WalletPaymentContext = {
  token: Address;
  transfers: { to: Address; amount: string }[];
  feeAmount: string;
  totalAmount: string;
};

const invalid = (field: string, message: string) => new ApiError("validation_error", `${field}: ${message}`, { field });

/** The body rules the schema cannot express: one token, non-zero amounts, a token this network charges fees in. */
function parseTransfers(network: WalletNetwork, request: WalletVerifyRequest) {
  const { transactions } = request;
  if (transactions.length === 0) throw invalid("transactions", "at least one transaction is required");
  if (transactions.length > MAX_WALLET_TRANSACTIONS) {
    throw invalid("transactions", `at most ${MAX_WALLET_TRANSACTIONS} transactions per batch`);
  }
  const token = getAddress(transactions[0]!.token);
  const transfers = transactions.map((transaction, index) => {
    if (getAddress(transaction.token) !== token) {
      throw invalid(`transactions.${index}.token`, "all transactions of a batch must use the same token");
    }
    const amount = BigInt(transaction.amount);
    if (amount === 0n) throw invalid(`transactions.${index}.amount`, "amount must be greater than zero");
    const to = getAddress(transaction.to);
    if (BigInt(to) === 0n) throw invalid(`transactions.${index}.to`, "recipient is the zero address");
    return { to, amount };
  });
  const tokenConfig = network.runtime.token(token);
  if (!tokenConfig)
    throw invalid("transactions.0.token", `token ${token} is not configured on ${network.runtime.name}`);
  const sum = transfers.reduce((total, transfer) => total + transfer.amount, 0n);
  const feeAmount = walletPaymentFee(sum, tokenConfig);
  const totalAmount = sum + feeAmount;
  if (totalAmount > maxUint256) throw invalid("transactions", "total amount exceeds uint256");
  return { token, transfers, feeAmount, totalAmount };
}

async function readState(network: WalletNetwork, wallet: Address, token: Address): Promise<WalletState> {
  try {
    return await readWalletState(network.runtime.client, {
      wallet,
      token,
      entryPoint: network.entryPoint,
      factory: network.runtime.config.contracts.factory as Address,
    });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
}

/**
 * /wallet/verify in the interface's order: deployed wallet, balance (one round trip with owner and nonce),
 * batch call with the fee, gas from the bundler, paymaster signature; the issue is remembered for settle.
 */
export async function verifyWalletPayment(
  deps: { network: WalletNetwork; store: IssuedUserOpStore; deny: DenyCounters; validitySeconds: number },
  request: WalletVerifyRequest,
): Promise<WalletVerifyResponse> {
  const { network } = deps;
  const wallet = getAddress(request.walletAddress);
  const plan = parseTransfers(network, request);

  const state = await readState(network, wallet, plan.token);
  if (!state.deployed) throw invalid("walletAddress", `no wallet deployed at ${wallet} on ${network.runtime.name}`);
  // Only our own accounts: any other contract could accept the sponsorship and do nothing with it.
  if (!state.fromFactory || !state.owner) {
    throw invalid("walletAddress", `${wallet} is not a relay402 wallet (deployed by the factory)`);
  }
  assertOwnerNotDenied(deps.deny, network.runtime.name, state.owner);
  if (state.balance < plan.totalAmount) {
    throw new ApiError(
      "validation_error",
      `insufficient token balance: ${state.balance} < totalAmount ${plan.totalAmount}`,
      {
        field: "transactions",
        balance: state.balance.toString(),
        totalAmount: plan.totalAmount.toString(),
      },
    );
  }

  const callData = walletPaymentCallData({
    ...plan,
    relayer: network.relayer,
    feeRecipient: network.runtime.config.feeRecipient as Address,
  });
  let sponsored: Awaited<ReturnType<typeof buildSponsoredUserOp>>;
  try {
    sponsored = await buildSponsoredUserOp(
      { sender: wallet, nonce: state.nonce, callData },
      {
        bundler: network.bundler,
        chainId: network.runtime.config.chainId,
        paymaster: network.paymaster,
        paymasterSigner: network.paymasterSigner,
        validitySeconds: deps.validitySeconds,
        caps: network.caps,
      },
    );
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to estimate gas for the UserOp", { reason: shortReason(error) });
  }

  const hash = userOpHash(sponsored.userOp, network.runtime.config.chainId, network.entryPoint);
  const userOp = toRpcUserOp(sponsored.userOp);
  const context: WalletPaymentContext = {
    token: plan.token,
    transfers: plan.transfers.map((transfer) => ({ to: transfer.to, amount: transfer.amount.toString() })),
    feeAmount: plan.feeAmount.toString(),
    totalAmount: plan.totalAmount.toString(),
  };
  deps.store.issue({
    userOpHash: hash,
    network: network.runtime.name,
    kind: "payment",
    sender: wallet,
    owner: state.owner,
    userOp: JSON.stringify(userOp),
    context: JSON.stringify(context),
    expiresAt: sponsored.validUntil,
  });
  return {
    isValid: true,
    payer: state.owner,
    userOp,
    userOpHash: hash,
    feeAmount: context.feeAmount,
    totalAmount: context.totalAmount,
  };
}
