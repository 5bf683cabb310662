import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from "viem";
import { SERVED_CIRCUIT_ID } from "./trusted-setup";

/** The Groth16 verification key's points as snarkjs writes them (decimal strings, projective coordinates). */
export type VerificationKey = {
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
};

/**
 * Every coordinate of the key's points (alpha, beta, gamma, delta and each IC), as the bytes a Solidity Groth16
 * verifier generated from that key pushes: snarkjs's verifier holds each one as a constant, so its runtime code
 * contains them all. A verifier made from another setup's key lacks them.
 */
export function verifierConstants(key: VerificationKey): string[] {
  const g1 = (point: string[]) => [point[0], point[1]];
  const g2 = (point: string[][]) => [point[0]?.[0], point[0]?.[1], point[1]?.[0], point[1]?.[1]];
  return [
    ...g1(key.vk_alpha_1),
    ...g2(key.vk_beta_2),
    ...g2(key.vk_gamma_2),
    ...g2(key.vk_delta_2),
    ...key.IC.flatMap(g1),
  ].map((value) => {
    const hex = BigInt(value ?? "0").toString(16);
    return hex.length % 2 ? `0${hex}` : hex;
  });
}

/** How many of the key's constants the verifier's runtime code lacks (0: it verifies this key's proofs). */
export function missingConstants(code: Hex, key: VerificationKey): number {
  const lower = code.toLowerCase();
  return verifierConstants(key).filter((constant) => !lower.includes(constant)).length;
}

/**
 * Why a network's pool cannot serve the circuit the service serves, if it cannot: its verifier (read from the pool)
 * has no code, or was not made from the served circuit's verification key, so every proof a client makes would
 * be refused on-chain. Checked at start; the incognito flow is then off on that network with this reason.
 */
export async function poolVerifierProblem(
  field: string,
  pool: Address,
  key: VerificationKey,
  call: (to: Address, data: Hex) => Promise<Hex | undefined>,
  codeAt: (address: Address) => Promise<Hex | undefined>,
): Promise<string | undefined> {
  const data = await call(pool, encodeFunctionData({ abi: privacyPoolAbi, functionName: "verifier" })).catch(
    () => undefined,
  );
  if (!data || data === "0x") return `${field} (${pool}) has no verifier() (is it relay402's PrivacyPool?)`;
  const verifier = decodeFunctionResult({ abi: privacyPoolAbi, functionName: "verifier", data });
  const code = await codeAt(verifier);
  if (!code || code === "0x") return `${field}'s verifier (${verifier}) has no code`;
  const missing = missingConstants(code, key);
  if (missing > 0)
    return (
      `${field}'s verifier (${verifier}) was not made from the served circuit ${SERVED_CIRCUIT_ID}'s verification ` +
      `key (${missing} of its constants are not in the verifier's code): deploy the pool with that circuit's ` +
      "verifier, or serve the circuit the pool verifies"
    );
  return undefined;
}
