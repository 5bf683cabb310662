import descriptorJson from "../../packages/client/circuit/circuit.json";

/**
 * Circuit ids (packages/client/circuit/circuit.json) whose trusted setup one machine ran alone: the committed devnet
 * setup. Whoever kept its toxic waste can prove any unshield, so a pool verifying with it holds nothing safely.
 * A ceremony's artifacts get another id (it is derived from the proving key) and are not listed.
 */
export const UNTRUSTED_SETUP_IDS: readonly string[] = ["unshield-a9f02a5930ae639b"];

/** The id of the circuit this build serves (the committed artifacts). */
export const SERVED_CIRCUIT_ID: string = descriptorJson.id;

export const isUntrustedSetup = (circuitId: string) => UNTRUSTED_SETUP_IDS.includes(circuitId);
