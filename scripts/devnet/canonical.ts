import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  pad,
  parseAbiParameters,
  parseEther,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CANONICAL } from "../../src/chain/canonical";
import { entryPointArtifact } from "./artifacts";
import { devnetKeys } from "./keys";

// What a real chain holds before relay402 arrives, placed on a local chain from the published artifacts
// (src/chain/canonical.ts names each source): the deterministic deployer (anvil's genesis has it), EntryPoint
// v0.7, Permit2 and Multicall3. relay402's deploy (src/operator/deploy/) does the rest, on the devnet as on a
// real chain.

const root = join(import.meta.dir, "..", "..");
/** eth-infinitism's salt for EntryPoint v0.7 (it lands at the canonical address only with this salt). */
const ENTRY_POINT_SALT: Hex = "0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3";

const hasCode = (code: Hex | undefined) => code !== undefined && code !== "0x";

/**
 * Uniswap's file that etches Permit2's runtime code, committed byte for byte from the npm package (its sha256 is
 * checked by test/swap/vendored-artifacts.test.ts), so that the 86 MB package is not installed for one constant.
 */
export const VENDORED_PERMIT2 = {
  dir: join(root, "artifacts", "uniswap", "v4-periphery-1.0.3"),
  package: "@uniswap/v4-periphery@1.0.3",
  files: {
    "DeployPermit2.sol": {
      from: "lib/permit2/test/utils/DeployPermit2.sol",
      sha256: "c1a8b89e6c39377490c3c6f7290e9cd40e59c2156333261955feee34a84d4d41",
    },
  },
} as const;

/**
 * Permit2's runtime code as deployed on `chainId`: Uniswap's etching copy (DeployPermit2.sol) with its two
 * immutables (src/chain/canonical.ts) set as Permit2's constructor sets them on that chain: the chain id and the
 * EIP-712 domain separator of (name "Permit2", chain id, Permit2's address).
 */
export function permit2RuntimeCode(chainId: number): Hex {
  const source = readFileSync(join(VENDORED_PERMIT2.dir, "DeployPermit2.sol"), "utf8");
  const match = source.match(/hex"([0-9a-fA-F]+)"/);
  if (!match?.[1]) throw new Error("Permit2's runtime code not found in DeployPermit2.sol");
  const separator = keccak256(
    encodeAbiParameters(parseAbiParameters("bytes32, bytes32, uint256, address"), [
      keccak256(toHex("EIP712Domain(string name,uint256 chainId,address verifyingContract)")),
      keccak256(toHex("Permit2")),
      BigInt(chainId),
      CANONICAL.permit2.address,
    ]),
  );
  const [chainIdSlot, separatorSlot] = CANONICAL.permit2.immutables;
  let code = match[1].toLowerCase();
  const write = (offset: number, word: Hex) => {
    code = code.slice(0, offset * 2) + word.slice(2) + code.slice((offset + 32) * 2);
  };
  write(chainIdSlot.offset, pad(toHex(chainId)));
  write(separatorSlot.offset, separator);
  return `0x${code}`;
}

const MULTICALL3_SIGNED_TX = join(root, "artifacts", "canonical", "multicall3.signed-tx.hex");

/**
 * Puts EntryPoint v0.7, Permit2 and Multicall3 at their canonical addresses, each unless it already has code (a
 * fork of a chain that has them): EntryPoint and Multicall3 by their published deployments, Permit2 etched.
 */
export async function placeCanonicalContracts(rpcUrl: string, chain: Chain): Promise<void> {
  const transport = http(rpcUrl);
  const client = createPublicClient({ chain, transport });
  const test = createTestClient({ chain, transport, mode: "anvil" });
  const wait = async (hash: Hex, what: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    if (receipt.status !== "success") throw new Error(`${what} reverted`);
  };

  if (!hasCode(await client.getCode({ address: CANONICAL.entryPointV07.address }))) {
    const initCode = entryPointArtifact().bytecode;
    const address = getContractAddress({
      opcode: "CREATE2",
      from: CANONICAL.create2Deployer.address,
      salt: ENTRY_POINT_SALT,
      bytecode: initCode,
    });
    if (address !== CANONICAL.entryPointV07.address) throw new Error(`EntryPoint would land at ${address}`);
    const funder = privateKeyToAccount(devnetKeys.bundlerUtility);
    await test.setBalance({ address: funder.address, value: parseEther("10000") });
    const wallet = createWalletClient({ chain, transport, account: funder });
    await wait(
      await wallet.sendTransaction({
        to: CANONICAL.create2Deployer.address,
        data: concat([ENTRY_POINT_SALT, initCode]),
      }),
      "EntryPoint's deployment",
    );
  }

  if (!hasCode(await client.getCode({ address: CANONICAL.permit2.address }))) {
    await test.setCode({ address: CANONICAL.permit2.address, bytecode: permit2RuntimeCode(chain.id) });
  }

  if (!hasCode(await client.getCode({ address: CANONICAL.multicall3.address }))) {
    // The pre-signed transaction has no chain id (it is valid on every chain) and pays 100 gwei for 1M gas.
    const signed = readFileSync(MULTICALL3_SIGNED_TX, "utf8").trim() as Hex;
    const sender = await recoverTransactionAddress({ serializedTransaction: signed as TransactionSerialized });
    const { gas = 0n, gasPrice = 0n } = parseTransaction(signed);
    await test.setBalance({ address: sender, value: gas * gasPrice });
    await wait(await client.sendRawTransaction({ serializedTransaction: signed }), "Multicall3's deployment");
  }
}
