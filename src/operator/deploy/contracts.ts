import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  parseAbiParameters,
  toHex,
} from "viem";
import { CANONICAL } from "../../chain/canonical";
import {
  type Create2Payload,
  creationCode,
  linkedCreationCode,
  poseidonPayloads,
  x402ProxyPayload,
  x402UptoProxyPayload,
} from "./artifacts";
import type { Feature } from "./network";

/**
 * A contract deploy puts at a CREATE2 address through the deterministic deployer. Its address depends only on the
 * deployer contract, the salt and the init code, and the init code of relay402's owned contracts holds their
 * initial owner (the deploy key's address) and, for the paymaster, its signer: the same deploy key and paymaster
 * signer give the same addresses on every chain, and a front-runner who sends the same payload deploys a
 * contract owned by the deploy key, which gains them nothing.
 */
export type Deployment = {
  /** What the plan and the config call it: the contract's name (Relayer, WalletFactory, Paymaster, …). */
  label: string;
  address: Address;
  payload: Create2Payload;
  /** Canonical contracts (x402's proxy, Poseidon) are checked by code hash where they already are. */
  canonical?: keyof typeof CANONICAL;
};

/** relay402's fixed salts: a new salt label is a new deployment (docs/production.md, "When contracts change"). */
export const saltOf = (label: string): Hex => keccak256(toHex(`relay402:${label}`));

export const create2Address = (payload: Create2Payload): Address =>
  getContractAddress({
    opcode: "CREATE2",
    from: CANONICAL.create2Deployer.address,
    salt: payload.salt,
    bytecode: payload.initCode,
  });

const deployment = (label: string, payload: Create2Payload, canonical?: keyof typeof CANONICAL): Deployment => {
  const address = create2Address(payload);
  if (canonical && address !== CANONICAL[canonical].address) {
    throw new Error(`${label} would land at ${address}, not at its canonical ${CANONICAL[canonical].address}`);
  }
  return { label, address, payload, ...(canonical ? { canonical } : {}) };
};

const ours = (label: string, initCode: Hex) => deployment(label, { salt: saltOf(label), initCode });

export type DeploymentInputs = {
  features: readonly Feature[];
  /** The deploy key's address: initial owner of the relayer and the paymaster. */
  deployer: Address;
  paymasterSigner: Address;
  /** The relayer's EIP-712 domain name (version "1"); default "relay402". Part of its init code, so of its address. */
  domainName?: string;
  /** Creation code of the unshield verifier (a ceremony's); default: contracts/UnshieldVerifier.sol's build. */
  verifierCreationCode?: Hex;
};

/** Whether the relayer is part of this deployment: EOA payments, swaps and the pool's token whitelist need it. */
export const needsRelayer = (features: readonly Feature[]) =>
  features.some((feature) => feature === "payments" || feature === "swaps" || feature === "incognito");

/** Every contract the features need, in deployment order (the pool after its libraries, verifier and relayer). */
export async function plannedDeployments(inputs: DeploymentInputs): Promise<Deployment[]> {
  const { features, deployer } = inputs;
  const list: Deployment[] = [];
  let relayer: Deployment | undefined;
  if (needsRelayer(features)) {
    relayer = ours(
      "Relayer",
      concat([
        creationCode("Relayer.sol", "Relayer"),
        encodeAbiParameters(parseAbiParameters("string, string, address"), [
          inputs.domainName ?? "relay402",
          "1",
          deployer,
        ]),
      ]),
    );
    list.push(relayer);
  }
  if (features.includes("smart-wallets")) {
    list.push(ours("WalletFactory", creationCode("WalletFactory.sol", "WalletFactory")));
    list.push(
      ours(
        "Paymaster",
        concat([
          creationCode("Paymaster.sol", "Paymaster"),
          encodeAbiParameters(parseAbiParameters("address, address, address"), [
            CANONICAL.entryPointV07.address,
            inputs.paymasterSigner,
            deployer,
          ]),
        ]),
      ),
    );
  }
  if (features.includes("x402")) {
    list.push(deployment("x402ExactPermit2Proxy", x402ProxyPayload(), "x402ExactPermit2Proxy"));
    list.push(deployment("x402UptoPermit2Proxy", x402UptoProxyPayload(), "x402UptoPermit2Proxy"));
  }
  if (features.includes("incognito") && relayer) {
    for (const { name, payload } of await poseidonPayloads())
      list.push(deployment(CANONICAL[name].name, payload, name));
    const verifier = ours(
      "UnshieldVerifier",
      inputs.verifierCreationCode ?? creationCode("UnshieldVerifier.sol", "Groth16Verifier"),
    );
    list.push(verifier);
    list.push(
      ours(
        "PrivacyPool",
        concat([
          linkedCreationCode("PrivacyPool.sol", "PrivacyPool", {
            PoseidonT3: CANONICAL.poseidonT3.address,
            PoseidonT4: CANONICAL.poseidonT4.address,
          }),
          encodeAbiParameters(parseAbiParameters("address, address"), [verifier.address, relayer.address]),
        ]),
      ),
    );
  }
  return list;
}

/** The canonical contracts a feature needs already on the chain (deploy refuses to run without them). */
export function requiredCanonical(features: readonly Feature[]): (keyof typeof CANONICAL)[] {
  const required: (keyof typeof CANONICAL)[] = ["create2Deployer", "multicall3"];
  if (features.includes("smart-wallets")) required.push("entryPointV07");
  if (features.includes("x402")) required.push("permit2");
  return required;
}
