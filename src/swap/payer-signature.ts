import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  recoverAddress,
} from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { decodeAggregate3, encodeAggregate3 } from "./quote-plan";

const erc1271Abi = parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"]);

/** The answer word Relayer._isValidSignature accepts: the ERC-1271 magic value, left-aligned, the rest zero. */
const MAGIC_WORD = `0x1626ba7e${"0".repeat(56)}`;

/**
 * Gas for the whole check's eth_call: a payer's code could otherwise make the node run up to its own eth_call cap
 * (often 50M gas) on every verify. Ten times the relayer's default erc1271GasLimit, plus room for a long
 * signature's calldata; the relayer's own cap is applied by the simulation that follows.
 */
const CHECK_GAS = 1_200_000n;

/**
 * Whether `signature` is the payer's over `digest`, in the relayer's own order (Relayer._isValidSignature):
 * ECDSA first, offline, so an EOA payer costs no RPC; when that fails, the payer's ERC-1271 isValidSignature in
 * one eth_call (through Multicall3, so a payer that reverts is a plain "no"; an account without code answers
 * nothing, also no). EOA payments get this verdict from the relayer's checkAuthorization, which only knows the
 * TransferWithAuthorization digest: hence this for the SwapWithAuthorization one.
 * The relayer's exact gas cap on the ERC-1271 call (erc1271GasLimit) is not applied here, only a bound (CHECK_GAS):
 * the swap's simulation that follows runs the relayer's own check with it, and settle's simulation runs it again
 * at the real gas price.
 */
export async function isPayerSignature(
  client: Pick<PublicClient, "call">,
  payer: Address,
  digest: Hex,
  signature: Hex,
): Promise<boolean> {
  try {
    if (isAddressEqual(await recoverAddress({ hash: digest, signature }), payer)) return true;
  } catch {
    // Not an ECDSA signature (a wallet's may be longer): only ERC-1271 can accept it.
  }
  const callData = encodeFunctionData({ abi: erc1271Abi, functionName: "isValidSignature", args: [digest, signature] });
  const { data } = await client.call({
    to: MULTICALL3,
    data: encodeAggregate3([{ target: payer, allowFailure: true, callData }]),
    gas: CHECK_GAS,
  });
  const [answer] = decodeAggregate3(data ?? "0x");
  return answer?.success === true && answer.returnData.slice(0, 66).toLowerCase() === MAGIC_WORD;
}
