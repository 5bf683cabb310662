// x402's upto proxy is compiled from source (x402 publishes no init code for it): the vendored sources, built with
// x402's compiler and settings, must give exactly the vendored init code, and that init code through the CREATE2
// deployer with x402's salt must land at the address x402's upto clients sign for. A changed source, setting,
// compiler or OpenZeppelin file moves the address, and this test says so.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { concat, encodeAbiParameters, getContractAddress, type Hex, keccak256 } from "viem";
import { CANONICAL } from "../../src/chain/canonical";

const root = resolve(import.meta.dir, "../..");
const vendored = join(root, "artifacts/x402/upto-proxy");
const UPTO_SALT: Hex = "0x000000000000000000000000000000000000000000000000b000000001db633d";
const INIT_CODE_HASH: Hex = "0x74f7a29cbc3c55f87cdef7f7c551643189e8bb62eed9de67753aebc402b83797";

/** The import paths of x402's sources, each with the vendored file that answers it. */
const SOURCES: Record<string, string> = {
  "src/x402UptoPermit2Proxy.sol": "src/x402UptoPermit2Proxy.sol",
  "src/x402BasePermit2Proxy.sol": "src/x402BasePermit2Proxy.sol",
  "src/interfaces/ISignatureTransfer.sol": "src/interfaces/ISignatureTransfer.sol",
  "@openzeppelin/contracts/utils/ReentrancyGuard.sol": "openzeppelin-contracts-5.5.0/utils/ReentrancyGuard.sol",
  "@openzeppelin/contracts/utils/StorageSlot.sol": "openzeppelin-contracts-5.5.0/utils/StorageSlot.sol",
  "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol":
    "openzeppelin-contracts-5.5.0/token/ERC20/extensions/IERC20Permit.sol",
};

async function compileWithX402Settings(): Promise<Hex> {
  const solc = (await import("solc-0.8.28")).default;
  expect(solc.version()).toStartWith("0.8.28+");
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(
      Object.entries(SOURCES).map(([path, file]) => [path, { content: readFileSync(join(vendored, file), "utf8") }]),
    ),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      viaIR: false,
      metadata: { appendCBOR: false, bytecodeHash: "none" },
      outputSelection: { "src/x402UptoPermit2Proxy.sol": { x402UptoPermit2Proxy: ["evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((error: { severity: string }) => error.severity === "error");
  expect(errors).toEqual([]);
  return `0x${output.contracts["src/x402UptoPermit2Proxy.sol"].x402UptoPermit2Proxy.evm.bytecode.object}`;
}

describe("x402's upto Permit2 proxy, built from its vendored sources", () => {
  test("solc 0.8.28 with x402's settings gives the vendored init code, at the canonical CREATE2 address", async () => {
    const creation = await compileWithX402Settings();
    const initCode = concat([creation, encodeAbiParameters([{ type: "address" }], [CANONICAL.permit2.address])]);
    const file = readFileSync(join(root, "artifacts/canonical/x402-upto-permit2-proxy.initcode.hex"), "utf8").trim();
    expect(initCode.toLowerCase()).toBe(file.toLowerCase());
    expect(keccak256(initCode)).toBe(INIT_CODE_HASH);
    const address = getContractAddress({
      opcode: "CREATE2",
      from: CANONICAL.create2Deployer.address,
      salt: UPTO_SALT,
      bytecode: initCode,
    });
    expect(address).toBe("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002");
  }, 60_000);
});
