import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getContractAddress,
  type Hex,
  http,
  keccak256,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER } from "../../src/chain/addresses";
import { PERMIT2, X402_EXACT_PERMIT2_PROXY } from "../../src/x402/permit2";
import { devnetKeys } from "./keys";

const root = join(import.meta.dir, "..", "..");

/**
 * x402's exact proxy exactly as published (x402's contracts/evm/script/data/exact-proxy-initcode.hex: creation
 * code with its build's metadata, then abi.encode(Permit2)), with the salt x402 mined for its address. Any
 * other build would land elsewhere, and clients sign for this address only.
 */
const PROXY_INIT_CODE_FILE = join(import.meta.dir, "x402-exact-permit2-proxy.initcode.hex");
const PROXY_INIT_CODE_HASH: Hex = "0xe774d1d5a07218946ab54efe010b300481478b86861bb17d69c98a57f68a604c";
const PROXY_SALT: Hex = "0x0000000000000000000000000000000000000000000000003000000007263b0e";

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

/** Permit2's runtime code as Uniswap ships it for etching (it recomputes its domain for the chain it runs on). */
export function permit2RuntimeCode(): Hex {
  const source = readFileSync(join(VENDORED_PERMIT2.dir, "DeployPermit2.sol"), "utf8");
  const match = source.match(/hex"([0-9a-fA-F]+)"/);
  if (!match) throw new Error("Permit2's runtime code not found in DeployPermit2.sol");
  return `0x${match[1]}`;
}

function proxyInitCode(): Hex {
  const code = readFileSync(PROXY_INIT_CODE_FILE, "utf8").trim() as Hex;
  if (keccak256(code) !== PROXY_INIT_CODE_HASH) throw new Error("x402's proxy init code does not hash as published");
  return code;
}

const hasCode = (code: Hex | undefined) => code !== undefined && code !== "0x";

/**
 * Puts Permit2 and x402's exact Permit2 proxy at their canonical addresses, each unless it already has code
 * (a fork of a chain that has them).
 */
export async function deployPermit2AndProxy(
  rpcUrl: string,
  chain: Chain,
): Promise<{ permit2: Address; proxy: Address }> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  if (!hasCode(await publicClient.getCode({ address: PERMIT2 }))) {
    await createTestClient({ chain, transport, mode: "anvil" }).setCode({
      address: PERMIT2,
      bytecode: permit2RuntimeCode(),
    });
  }
  const initCode = proxyInitCode();
  const proxy = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt: PROXY_SALT, bytecode: initCode });
  if (proxy !== X402_EXACT_PERMIT2_PROXY)
    throw new Error(`x402's proxy would land at ${proxy}, not ${X402_EXACT_PERMIT2_PROXY}`);
  if (!hasCode(await publicClient.getCode({ address: proxy }))) {
    const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(devnetKeys.owner) });
    const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([PROXY_SALT, initCode]) });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    if (receipt.status !== "success" || !hasCode(await publicClient.getCode({ address: proxy })))
      throw new Error(`x402's proxy was not deployed at ${proxy}`);
  }
  return { permit2: PERMIT2, proxy };
}
