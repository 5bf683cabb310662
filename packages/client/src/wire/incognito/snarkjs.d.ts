// snarkjs and ffjavascript ship no type declarations: only what relay402 calls is declared here.
declare module "snarkjs" {
  export type Groth16Proof = {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  };
  type Logger = { info(...args: unknown[]): void; debug(...args: unknown[]): void; error(...args: unknown[]): void };
  type FileOrBuffer = string | Uint8Array | { type: "mem"; data?: Uint8Array };
  export const groth16: {
    fullProve(
      input: Record<string, unknown>,
      wasm: FileOrBuffer,
      zkey: FileOrBuffer,
      logger?: Logger,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(verificationKey: unknown, publicSignals: string[], proof: Groth16Proof, logger?: Logger): Promise<boolean>;
    exportSolidityCallData(proof: Groth16Proof, publicSignals: string[]): Promise<string>;
  };
  export const powersOfTau: {
    newAccumulator(curve: unknown, power: number, fileName: string, logger?: Logger): Promise<unknown>;
    contribute(oldFile: string, newFile: string, name: string, entropy: string, logger?: Logger): Promise<unknown>;
    preparePhase2(oldFile: string, newFile: string, logger?: Logger): Promise<unknown>;
  };
  export const zKey: {
    newZKey(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<unknown>;
    contribute(oldZkey: string, newZkey: string, name: string, entropy: string, logger?: Logger): Promise<unknown>;
    exportVerificationKey(zkey: FileOrBuffer, logger?: Logger): Promise<Record<string, unknown>>;
    exportSolidityVerifier(zkey: FileOrBuffer, templates: Record<string, string>, logger?: Logger): Promise<string>;
  };
  export const curves: { getCurveFromName(name: string): Promise<unknown> };
}

declare module "ffjavascript" {
  export function buildBn128(singleThread?: boolean): Promise<{ terminate(): Promise<void> }>;
}
