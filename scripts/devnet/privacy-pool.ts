import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PoseidonT3, PoseidonT4, proxy } from "poseidon-solidity";
import {
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  slice,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "./keys";

const root = join(import.meta.dir, "..", "..");
/** Arachnid's deterministic deployment proxy (src/chain/addresses.ts's CREATE2_DEPLOYER), which poseidon-solidity deploys with. */
const CREATE2_DEPLOYER = getAddress(proxy.address);

/** The Poseidon libraries the pool links, at the addresses poseidon-solidity documents for every EVM chain. */
export const POSEIDON_T3: Address = getAddress(PoseidonT3.address);
export const POSEIDON_T4: Address = getAddress(PoseidonT4.address);

type LinkReferences = Record<string, Record<string, { start: number; length: number }[]>>;

/**
 * PrivacyPool's creation code with PoseidonT3 (its tree) and PoseidonT4 (its commitment) linked to their
 * canonical addresses: forge leaves placeholders for public library functions.
 */
export function privacyPoolBytecode(): Hex {
  const json = JSON.parse(readFileSync(join(root, "out", "PrivacyPool.sol", "PrivacyPool.json"), "utf8"));
  const libraries: Record<string, Address> = { PoseidonT3: POSEIDON_T3, PoseidonT4: POSEIDON_T4 };
  let code: string = json.bytecode.object.slice(2);
  for (const file of Object.values(json.bytecode.linkReferences as LinkReferences)) {
    for (const [name, places] of Object.entries(file)) {
      const address = libraries[name];
      if (!address) throw new Error(`PrivacyPool links an unknown library ${name}`);
      for (const { start, length } of places) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  if (code.includes("__$")) throw new Error("PrivacyPool's bytecode still has unlinked libraries");
  return `0x${code}`;
}

function verifierBytecode(): Hex {
  const json = JSON.parse(readFileSync(join(root, "out", "UnshieldVerifier.sol", "Groth16Verifier.json"), "utf8"));
  return json.bytecode.object;
}

export type DeployedPrivacyPool = { privacyPool: Address; unshieldVerifier: Address };

/**
 * Deploys the privacy pool through the CREATE2 deployer (same address on every chain): the Poseidon libraries
 * from poseidon-solidity's own deployment data, the verifier of the committed zkey, then the pool, whose tokens
 * are `relayer`'s whitelist. Whatever already has code (a rerun, a fork) is left alone.
 */
export async function deployPrivacyPool(rpcUrl: string, chain: Chain, relayer: Address): Promise<DeployedPrivacyPool> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(devnetKeys.owner) });

  const create2 = async (saltAndInitCode: Hex): Promise<Address> => {
    const salt = slice(saltAndInitCode, 0, 32);
    const initCode = slice(saltAndInitCode, 32);
    const address = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode });
    const code = await publicClient.getCode({ address });
    if (code && code !== "0x") return address;
    const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: saltAndInitCode });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    const deployed = await publicClient.getCode({ address });
    if (receipt.status !== "success" || !deployed || deployed === "0x") {
      throw new Error(`CREATE2 deployment of ${address} failed`);
    }
    return address;
  };

  for (const [library, expected] of [
    [PoseidonT3, POSEIDON_T3],
    [PoseidonT4, POSEIDON_T4],
  ] as const) {
    const address = await create2(library.data as Hex);
    if (address !== expected) throw new Error(`Poseidon landed at ${address}, expected ${expected}`);
  }
  const salt = (label: string) => keccak256(toHex(`relay402:${label}`));
  const unshieldVerifier = await create2(concat([salt("UnshieldVerifier"), verifierBytecode()]));
  const privacyPool = await create2(
    concat([
      salt("PrivacyPool"),
      privacyPoolBytecode(),
      encodeAbiParameters([{ type: "address" }, { type: "address" }], [unshieldVerifier, relayer]),
    ]),
  );
  return { privacyPool, unshieldVerifier };
}
