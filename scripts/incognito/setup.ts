/**
 * The unshield circuit's trusted setup, run once and committed: compiles circuits/unshield.circom, runs a local
 * powers of tau (2^13) with one contribution and one phase-2 contribution, and writes what a service and a
 * client need: the witness generator (wasm), the proving key (zkey), the verification key, circuit.json (id,
 * signal order, hashes) and the Solidity verifier contracts/UnshieldVerifier.sol.
 *
 * A single local contribution is for the devnet only (whoever ran this could forge proofs): see docs/incognito.md,
 * "Incognito: trusted setup", for a production ceremony. Rerun with `bun scripts/incognito/setup.ts`, then
 * `bun scripts/incognito/fixtures.ts` (the forge fixture proofs are bound to the zkey).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useSingleThreadedCurve } from "@relay402/client/wire/incognito/snark";
import * as snarkjs from "snarkjs";
import { CIRCUIT_ARTIFACTS, circuitDescriptor, REPO_ROOT } from "../../src/incognito/artifacts";
import { exportVerifierSource } from "./verifier";

const POWER = 13;
const logger = {
  info: (...args: unknown[]) => console.log(...args),
  debug: () => {},
  error: (...args: unknown[]) => console.error(...args),
};
const entropy = () => Buffer.from(crypto.getRandomValues(new Uint8Array(64))).toString("hex");

export async function runSetup(): Promise<void> {
  await useSingleThreadedCurve();
  const work = mkdtempSync(join(tmpdir(), "relay402-incognito-setup-"));
  try {
    const started = Date.now();
    const compile = spawnSync(
      join(REPO_ROOT, "node_modules/.bin/circom2"),
      [CIRCUIT_ARTIFACTS.source, "--r1cs", "--wasm", "--O2", "-l", join(REPO_ROOT, "node_modules"), "-o", work],
      { cwd: REPO_ROOT, encoding: "utf8" },
    );
    if (compile.status !== 0) throw new Error(`circom failed:\n${compile.stdout}\n${compile.stderr}`);
    console.log(compile.stdout.trim());

    const r1cs = join(work, "unshield.r1cs");
    const [pot0, pot1, potFinal] = ["pot0.ptau", "pot1.ptau", "pot_final.ptau"].map((name) => join(work, name));
    const curve = await snarkjs.curves.getCurveFromName("bn128");
    await snarkjs.powersOfTau.newAccumulator(curve, POWER, pot0!, logger);
    await snarkjs.powersOfTau.contribute(pot0!, pot1!, "relay402 devnet phase 1", entropy(), logger);
    await snarkjs.powersOfTau.preparePhase2(pot1!, potFinal!, logger);

    const zkey0 = join(work, "unshield_0.zkey");
    const zkey1 = join(work, "unshield_1.zkey");
    await snarkjs.zKey.newZKey(r1cs, potFinal!, zkey0, logger);
    await snarkjs.zKey.contribute(zkey0, zkey1, "relay402 devnet phase 2", entropy(), logger);

    copyFileSync(join(work, "unshield_js", "unshield.wasm"), CIRCUIT_ARTIFACTS.wasm);
    copyFileSync(zkey1, CIRCUIT_ARTIFACTS.zkey);
    const verificationKey = await snarkjs.zKey.exportVerificationKey(zkey1);
    writeFileSync(CIRCUIT_ARTIFACTS.verificationKey, `${JSON.stringify(verificationKey, null, 2)}\n`);
    writeFileSync(CIRCUIT_ARTIFACTS.verifier, await exportVerifierSource(readFileSync(zkey1)));
    writeFileSync(CIRCUIT_ARTIFACTS.descriptor, `${JSON.stringify(circuitDescriptor(), null, 2)}\n`);
    console.log(`setup done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await runSetup();
  process.exit(0);
}
