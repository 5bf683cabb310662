import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as snarkjs from "snarkjs";
import { REPO_ROOT } from "../../src/incognito/artifacts";

/** The Solidity verifier snarkjs generates for a zkey (its own Groth16 template, unchanged). */
export async function exportVerifierSource(zkey: Uint8Array): Promise<string> {
  const template = readFileSync(join(REPO_ROOT, "node_modules/snarkjs/templates/verifier_groth16.sol.ejs"), "utf8");
  return snarkjs.zKey.exportSolidityVerifier({ type: "mem", data: zkey }, { groth16: template });
}
