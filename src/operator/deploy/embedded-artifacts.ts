/**
 * The build artifacts `relay402 deploy` sends, as the compiled binary carries them: scripts/build-binary.ts embeds
 * each file in the binary and registers its path here (under its path relative to out/ or artifacts/) before the
 * command line runs. From a checkout nothing is registered and deploy reads the files themselves.
 */
const embedded = new Map<string, string>();

export function registerEmbeddedArtifact(key: string, path: string): void {
  embedded.set(key, path);
}

/** The embedded file's path for `key` (`out/Relayer.sol/Relayer.json`), if the binary carries it. */
export function embeddedArtifact(key: string): string | undefined {
  return embedded.get(key);
}

/** The artifacts deploy needs, each relative to the repository: what scripts/build-binary.ts embeds. */
export const DEPLOY_ARTIFACTS = [
  "out/Relayer.sol/Relayer.json",
  "out/WalletFactory.sol/WalletFactory.json",
  "out/Paymaster.sol/Paymaster.json",
  "out/UnshieldVerifier.sol/Groth16Verifier.json",
  "out/PrivacyPool.sol/PrivacyPool.json",
  "artifacts/canonical/x402-exact-permit2-proxy.initcode.hex",
  "artifacts/canonical/x402-upto-permit2-proxy.initcode.hex",
] as const;
