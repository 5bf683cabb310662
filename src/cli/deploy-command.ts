import { readFileSync } from "node:fs";
import { type Address, createPublicClient, erc20Abi, type Hex, http, isAddress, isHex, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { isPublicTestAddress, publicTestKeys } from "../config/public-keys";
import { MissingArtifactError } from "../operator/deploy/artifacts";
import { secretEnvironment, writeConfig } from "../operator/deploy/config-out";
import { deploy } from "../operator/deploy/deploy";
import {
  DEFAULT_FEATURES,
  DEPLOY_NETWORK_NAMES,
  deployNetwork,
  envPrefix,
  FEATURES,
  type PresetToken,
  parseFeatures,
} from "../operator/deploy/network";
import { DeployRefusal } from "../operator/deploy/plan";
import { type Command, parseFlags, UsageError } from "./command";

const usage = `Usage: relay402 deploy --network <${DEPLOY_NETWORK_NAMES.join("|")}> --rpc-url <url> [options]

Deploys relay402's contracts through the deterministic CREATE2 deployer and sets them up, sending only what is
missing (a second run sends nothing). The deploy key comes from the DEPLOYER_KEY environment variable, never an
argument. Contract addresses depend only on the deploy key's address and the paymaster signer: the same pair
gives the same addresses on every chain.

Options:
  --network <name>            ${DEPLOY_NETWORK_NAMES.join(", ")} (its chain id is checked against the RPC)
  --rpc-url <url>             JSON-RPC URL (default: the first of <NETWORK>_RPC_URLS); never printed
  --features <list>           comma-separated: ${FEATURES.join(", ")}
                              (default: ${DEFAULT_FEATURES.join(",")})
  --tokens <addresses>        tokens to whitelist, comma-separated (default: the network's stablecoins)
  --owner <address>           proposed as owner of the relayer and the paymaster (two-step: it must call
                              acceptOwnership()); must have code (a multisig) unless --owner-eoa
  --owner-eoa                 accept an --owner without code
  --keep-deploy-key-owner     on a mainnet without --owner: keep the deploy key as the owner of every contract
                              (required there, so that a forgotten --owner is not a hot key owning the relayer)
  --fee-recipient <address>   the config's feeRecipient and the relayer's swap fee recipient (default: --owner,
                              else the deploy key's address)
  --paymaster-signer <addr>   the paymaster's signer (default: the address of <NETWORK>_PAYMASTER_SIGNER_KEY)
  --paymaster-deposit <n>     the paymaster's EntryPoint deposit in native token (default 0.1)
  --paymaster-stake <n>       the paymaster's EntryPoint stake in native token (default 1: Alto's minimum in safe
                              mode; 0 for none)
  --unstake-delay <seconds>   the stake's unstake delay (default 86400)
  --domain-name <name>        the relayer's EIP-712 domain name (default relay402; version 1): what payers sign
  --verifier <file>           creation code (hex) of a ceremony's unshield verifier, for incognito
  --allow-untrusted-setup     deploy incognito with the repository's devnet verifier (anyone holding that
                              setup's toxic waste can forge proofs)
  --dry-run                   send nothing: print the plan, each transaction's gas and the total cost
  --config-out <file>         write (or add this network to) a config for \`relay402 start\`
  --help                      this text

Environment: DEPLOYER_KEY (required), <NETWORK>_RPC_URLS, <NETWORK>_PAYMASTER_SIGNER_KEY.
On bsc and base, a deploy key or paymaster signer of the public test mnemonic (test test … junk) is refused.
No message repeats an argument's value: a key pasted in the wrong place never reaches a terminal or a log.
Exit status: 0 done, 1 refused or failed (the reason is printed), 2 bad arguments.`;

/** What parseFlags takes; its refusals name the flag, never the value (a key pasted in the wrong place). */
const FLAGS = {
  booleans: ["owner-eoa", "keep-deploy-key-owner", "allow-untrusted-setup", "dry-run", "help"],
  strings: [
    "network",
    "rpc-url",
    "features",
    "tokens",
    "owner",
    "fee-recipient",
    "paymaster-signer",
    "paymaster-deposit",
    "paymaster-stake",
    "unstake-delay",
    "verifier",
    "domain-name",
    "config-out",
  ],
} as const;

const address = (value: string | undefined, flag: string): Address | undefined => {
  if (value === undefined) return undefined;
  if (!isAddress(value, { strict: false })) throw new UsageError(`${flag}: not an address`);
  return value;
};
const nativeAmount = (value: string, flag: string) => {
  if (!/^[0-9]+(\.[0-9]{1,18})?$/.test(value)) throw new UsageError(`${flag}: not an amount of native token`);
  return parseEther(value);
};
const privateKey = (value: string | undefined, variable: string): Hex | undefined => {
  if (value === undefined || value === "") return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new UsageError(`${variable}: not a 32-byte hex private key`);
  return value as Hex;
};

const domainName = (value: string | undefined) => {
  if (value !== undefined && !/^[\x20-\x7e]{1,64}$/.test(value)) {
    throw new UsageError("--domain-name: 1 to 64 printable ASCII characters");
  }
  return value;
};

/** Tokens given by address: symbol and decimals read from the chain, EIP-3009 as the network's preset says. */
async function tokensFrom(list: string, rpcUrl: string, preset: PresetToken[]): Promise<PresetToken[]> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const tokens: PresetToken[] = [];
  for (const item of list.split(",").map((entry) => entry.trim())) {
    const tokenAddress = address(item, "--tokens") as Address;
    const known = preset.find((token) => token.address.toLowerCase() === tokenAddress.toLowerCase());
    if (known) {
      tokens.push(known);
      continue;
    }
    const [symbol, decimals] = await Promise.all([
      client.readContract({ address: tokenAddress, abi: erc20Abi, functionName: "symbol" }),
      client.readContract({ address: tokenAddress, abi: erc20Abi, functionName: "decimals" }),
    ]);
    tokens.push({ symbol, address: tokenAddress, decimals, eip3009: false });
  }
  return tokens;
}

/**
 * On a mainnet, the deploy key owns every contract until the owner accepts, and the paymaster signer decides what the
 * paymaster's deposit pays for: a key of the public test mnemonic there is anyone's. Names the source, never the key.
 */
function refusePublicKeys(
  network: string,
  keys: { deployerKey: Hex; paymasterSigner: Address | undefined; signerField: string },
) {
  const fields = [
    publicTestKeys().has(keys.deployerKey.toLowerCase()) ? "DEPLOYER_KEY" : undefined,
    keys.paymasterSigner && isPublicTestAddress(keys.paymasterSigner) ? keys.signerField : undefined,
  ].filter((field): field is string => field !== undefined);
  if (fields.length > 0) {
    throw new DeployRefusal(
      `${fields.join(" and ")}: a key of the public test mnemonic (test test … junk), which anyone can sign with; ` +
        `use keys of your own on ${network}`,
    );
  }
}

/**
 * writeConfig, whose file errors (a path, a line of a file that is not JSON) are told without quoting either: the
 * path is an argument. Everything is on the chain by then, so a run again with a writable file sends nothing.
 */
function writeConfigQuietly(file: string, out: Parameters<typeof writeConfig>[1]) {
  try {
    writeConfig(file, out);
  } catch (error) {
    const reason = error instanceof SyntaxError ? "it holds no JSON" : ((error as { code?: string }).code ?? "error");
    throw new DeployRefusal(
      `--config-out: cannot write the file (${reason}); the contracts are in place: run again with a writable file`,
    );
  }
}

/** An error's message without the RPC URL (it may hold an API key). */
const redacted = (error: unknown, rpcUrl: string | undefined) => {
  const message = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message ?? String(error);
  return rpcUrl ? message.replaceAll(rpcUrl, "<rpc-url>") : message;
};

async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let rpcUrl: string | undefined;
  try {
    const { booleans, strings: values } = parseFlags(argv, FLAGS);
    if (booleans.help) {
      console.log(usage);
      return 0;
    }
    if (!values.network) throw new UsageError("--network is required");
    const network = deployNetwork(values.network);
    if (!network) throw new UsageError(`--network: not a known network (${DEPLOY_NETWORK_NAMES.join(", ")})`);
    const prefix = envPrefix(network.name);
    rpcUrl = values["rpc-url"] ?? env[`${prefix}_RPC_URLS`]?.split(",")[0]?.trim();
    if (!rpcUrl || !/^https?:\/\//.test(rpcUrl)) {
      throw new UsageError(`--rpc-url (or ${prefix}_RPC_URLS) is required: an http(s) JSON-RPC URL`);
    }
    const deployerKey = privateKey(env.DEPLOYER_KEY, "DEPLOYER_KEY");
    if (!deployerKey) throw new UsageError("DEPLOYER_KEY is required in the environment (the deploy key)");
    const parsed = parseFeatures(values.features ?? DEFAULT_FEATURES.join(","));
    if ("unknown" in parsed) throw new UsageError(`--features: a feature is not known (${FEATURES.join(", ")})`);
    const { features } = parsed;
    const owner = address(values.owner, "--owner");
    const signerKey = privateKey(env[`${prefix}_PAYMASTER_SIGNER_KEY`], `${prefix}_PAYMASTER_SIGNER_KEY`);
    const paymasterSigner =
      address(values["paymaster-signer"], "--paymaster-signer") ??
      (signerKey ? privateKeyToAccount(signerKey).address : undefined);
    if (features.includes("smart-wallets") && !paymasterSigner) {
      throw new UsageError(`smart-wallets needs --paymaster-signer (or ${prefix}_PAYMASTER_SIGNER_KEY)`);
    }
    if (owner && booleans["keep-deploy-key-owner"]) {
      throw new UsageError("--owner and --keep-deploy-key-owner: give one of them");
    }
    if (!network.testnet) {
      if (!owner && !booleans["keep-deploy-key-owner"]) {
        throw new UsageError(
          `--owner is required on ${network.name} (a multisig, proposed as owner of the relayer and the paymaster), ` +
            "or --keep-deploy-key-owner to keep the deploy key as their owner",
        );
      }
      refusePublicKeys(network.name, {
        deployerKey,
        paymasterSigner,
        signerField: values["paymaster-signer"] ? "--paymaster-signer" : `${prefix}_PAYMASTER_SIGNER_KEY`,
      });
    }
    const deployer = privateKeyToAccount(deployerKey).address;
    const unstakeDelay = Number(values["unstake-delay"] ?? "86400");
    if (!Number.isInteger(unstakeDelay) || unstakeDelay < 1 || unstakeDelay > 2 ** 32 - 1) {
      throw new UsageError("--unstake-delay: a whole number of seconds");
    }
    let verifierCreationCode: Hex | undefined;
    if (values.verifier) {
      const file = values.verifier;
      const code = (() => {
        try {
          return readFileSync(file, "utf8").trim();
        } catch {
          throw new UsageError("--verifier: cannot read the file");
        }
      })();
      if (!isHex(code) || code.length < 4) throw new UsageError("--verifier: the file must hold hex creation code");
      verifierCreationCode = code;
    }
    const tokens = values.tokens ? await tokensFrom(values.tokens, rpcUrl, network.tokens) : network.tokens;
    const feeRecipient = address(values["fee-recipient"], "--fee-recipient") ?? owner ?? deployer;
    const startBlock = Number(await createPublicClient({ transport: http(rpcUrl) }).getBlockNumber());

    const result = await deploy(
      {
        network,
        features,
        rpcUrl,
        deployerKey,
        paymasterSigner: paymasterSigner ?? deployer,
        tokens,
        feeRecipient,
        owner,
        ownerIsEoa: booleans["owner-eoa"],
        paymasterDeposit: nativeAmount(values["paymaster-deposit"] ?? "0.1", "--paymaster-deposit"),
        paymasterStake: {
          amount: nativeAmount(values["paymaster-stake"] ?? "1", "--paymaster-stake"),
          unstakeDelaySec: unstakeDelay,
        },
        verifierCreationCode,
        domainName: domainName(values["domain-name"]),
        allowUntrustedSetup: booleans["allow-untrusted-setup"],
        dryRun: booleans["dry-run"],
      },
      (line) => console.log(line),
    );
    const configOut = values["config-out"];
    if (configOut && !booleans["dry-run"]) {
      writeConfigQuietly(configOut, {
        network,
        features,
        addresses: result.addresses,
        tokens,
        feeRecipient,
        allowUntrustedSetup: booleans["allow-untrusted-setup"],
        // The pool's leaf indexer starts at the block before this run when the pool was deployed by it.
        privacyPoolStartBlock: result.deployedNow.includes("PrivacyPool") ? startBlock : undefined,
      });
      console.log(
        `Config written (--config-out); set its secrets in ${secretEnvironment(network, features).join(", ")}.`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`relay402 deploy: ${(error as Error).message}\nSee relay402 deploy --help.`);
      return 2;
    }
    if (error instanceof DeployRefusal || error instanceof MissingArtifactError) {
      console.error(`relay402 deploy: refused: ${error.message}`);
      return 1;
    }
    console.error(`relay402 deploy: failed: ${redacted(error, rpcUrl)}`);
    return 1;
  }
}

/** `relay402 deploy`: a subcommand as the CLI dispatcher takes it. */
export const deployCommand = {
  name: "deploy",
  summary: "deploy and set up relay402's contracts on a chain (only what is missing)",
  usage,
  run,
} satisfies Command;
