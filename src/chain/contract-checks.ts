import { factoryAbi, paymasterAbi, relayerAbi } from "@relay402/client/wire/abis";
import { type Address, isAddressEqual, type PublicClient, parseAbi, zeroAddress, zeroHash } from "viem";
import { smartWalletSettingsOf } from "../config/capabilities";
import type { NetworkConfig, NetworkName } from "../config/schema";
import { MULTICALL3 } from "./addresses";

/**
 * One check of the start, as `relay402 check` lists it (src/chain/wiring-check.ts): what was checked, naming the
 * config field, and the problem that stops the start, if any.
 */
export type ContractCheck = { check: string; problem?: string };

/** A token's EIP-712 domain name and version (what an EIP-3009 or EIP-2612 signature is made under). */
export type TokenDomain = { name: string; version: string };

/** The EIP-712 name of relay402's Account (contracts/Account.sol): how a factory's implementation is known as ours. */
const ACCOUNT_DOMAIN_NAME = "relay402 Account";

const eip5267Abi = parseAbi([
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
]);
const tokenAbi = parseAbi([
  "function decimals() view returns (uint8)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  // EIP-3009: every implementation has this view; a token without it has no transferWithAuthorization.
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  // EIP-2612: permit's nonces and domain separator.
  "function nonces(address owner) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
]);
const paymasterEntryPointAbi = parseAbi(["function entryPoint() view returns (address)"]);

type Call = { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] };
type Answer = { status: "success"; result: unknown } | { status: "failure" };

/** Several view calls in one eth_call through Multicall3 (deployless where a chain has none), each failing alone. */
async function readAll(client: PublicClient, calls: Call[], multicall: boolean): Promise<Answer[]> {
  if (calls.length === 0) return [];
  const answers = await client.multicall({
    contracts: calls as never,
    allowFailure: true,
    ...(multicall ? { multicallAddress: MULTICALL3 } : { deployless: true }),
  });
  return answers as Answer[];
}

const ok = (answer: Answer | undefined): answer is { status: "success"; result: unknown } =>
  answer?.status === "success";

/**
 * The contracts and tokens a network's config names, checked on its chain in three round trips (their code in one
 * JSON-RPC batch, then two Multicall3 reads): each configured contract has code; the relayer answers EIP-5267 for
 * this chain and itself and whitelists every configured token; the factory's implementation is relay402's Account;
 * the paymaster verifies the configured signer and uses the configured EntryPoint; each token's decimals, EIP-3009
 * and EIP-2612 are what the config says, and its EIP-712 name and version are read (for /config and /supported).
 */
export async function contractChecks(
  name: NetworkName,
  network: NetworkConfig,
  client: PublicClient,
): Promise<{ checks: ContractCheck[]; tokenDomains: Record<string, TokenDomain | null> }> {
  const field = `networks.${name}`;
  const { relayer, privacyPool } = network.contracts;
  const wallet = smartWalletSettingsOf(network);
  const contracts: [string, Address][] = [
    ...(relayer ? [[`${field}.contracts.relayer`, relayer] as [string, Address]] : []),
    ...(wallet
      ? ([
          [`${field}.contracts.entryPoint`, wallet.entryPoint],
          [`${field}.contracts.factory`, wallet.factory],
          [`${field}.contracts.paymaster`, wallet.paymaster],
        ] as [string, Address][])
      : []),
    ...(privacyPool && wallet ? [[`${field}.contracts.privacyPool`, privacyPool] as [string, Address]] : []),
    ...network.tokens.map((token, i) => [`${field}.tokens.${i}.address`, token.address] as [string, Address]),
  ];
  // Round trip 1: every address's code (one JSON-RPC batch), Multicall3's included.
  const codes = await Promise.all(
    [MULTICALL3, ...contracts.map(([, address]) => address)].map((address) =>
      client.getCode({ address }).then((code) => code !== undefined && code !== "0x"),
    ),
  );
  const multicall = codes[0] as boolean;
  const checks: ContractCheck[] = [];
  const hasCode = new Set<string>();
  contracts.forEach(([what, address], i) => {
    const present = codes[i + 1] as boolean;
    if (present) hasCode.add(what);
    checks.push({
      check: `${what} has code`,
      ...(present ? {} : { problem: `${what} has no code at ${address} on chain ${network.chainId}` }),
    });
  });

  // Round trip 2: the contracts' and tokens' views, in one multicall.
  const calls: Call[] = [];
  const at = (call: Call) => calls.push(call) - 1;
  const relayerOk = relayer && hasCode.has(`${field}.contracts.relayer`);
  const relayerDomain = relayerOk ? at({ address: relayer, abi: eip5267Abi, functionName: "eip712Domain" }) : -1;
  const whitelisted = network.tokens.map((token) =>
    relayerOk
      ? at({ address: relayer, abi: relayerAbi, functionName: "isTokenWhitelisted", args: [token.address] })
      : -1,
  );
  const factoryOk = wallet && hasCode.has(`${field}.contracts.factory`);
  const implementation = factoryOk
    ? at({ address: wallet.factory, abi: factoryAbi, functionName: "accountImplementation" })
    : -1;
  const paymasterOk = wallet && hasCode.has(`${field}.contracts.paymaster`);
  const signer = paymasterOk
    ? at({ address: wallet.paymaster, abi: paymasterAbi, functionName: "verifyingSigner" })
    : -1;
  const paymasterEntryPoint = paymasterOk
    ? at({ address: wallet.paymaster, abi: paymasterEntryPointAbi, functionName: "entryPoint" })
    : -1;
  const tokenCalls = network.tokens.map((token, i) => {
    if (!hasCode.has(`${field}.tokens.${i}.address`)) return null;
    const address = token.address;
    return {
      decimals: at({ address, abi: tokenAbi, functionName: "decimals" }),
      domain: at({ address, abi: eip5267Abi, functionName: "eip712Domain" }),
      name: at({ address, abi: tokenAbi, functionName: "name" }),
      version: at({ address, abi: tokenAbi, functionName: "version" }),
      eip3009: at({ address, abi: tokenAbi, functionName: "authorizationState", args: [zeroAddress, zeroHash] }),
      nonces: at({ address, abi: tokenAbi, functionName: "nonces", args: [zeroAddress] }),
      separator: at({ address, abi: tokenAbi, functionName: "DOMAIN_SEPARATOR" }),
    };
  });
  const answers = await readAll(client, calls, multicall);
  const answer = (index: number) => (index < 0 ? undefined : answers[index]);

  if (relayerOk) {
    const domain = answer(relayerDomain);
    const [, , , chainId, verifyingContract] = ok(domain)
      ? (domain.result as [unknown, string, string, bigint, Address])
      : [];
    const what = `${field}.contracts.relayer answers eip712Domain() (EIP-5267) for chain ${network.chainId} and itself`;
    const problem = !ok(domain)
      ? `${field}.contracts.relayer does not answer eip712Domain() (EIP-5267): not a relay402 Relayer?`
      : Number(chainId) !== network.chainId || !isAddressEqual(verifyingContract as Address, relayer)
        ? `${field}.contracts.relayer's EIP-712 domain is for chain ${chainId} and ${verifyingContract}`
        : undefined;
    checks.push({ check: what, ...(problem ? { problem } : {}) });
    network.tokens.forEach((token, i) => {
      const listed = answer(whitelisted[i] as number);
      const problem = !ok(listed)
        ? `${field}.contracts.relayer does not answer isTokenWhitelisted()`
        : listed.result !== true
          ? `${field}.tokens.${i} (${token.symbol}) is not whitelisted by ${field}.contracts.relayer (its owner calls setTokenWhitelisted)`
          : undefined;
      checks.push({
        check: `${field}.contracts.relayer whitelists ${field}.tokens.${i} (${token.symbol})`,
        ...(problem ? { problem } : {}),
      });
    });
  }
  if (wallet && paymasterOk) {
    const onChain = answer(signer);
    const configured = wallet.paymasterSigner.address;
    const problem = !ok(onChain)
      ? `${field}.contracts.paymaster has no verifyingSigner() (not a relay402 Paymaster on this chain?)`
      : !isAddressEqual(onChain.result as Address, configured)
        ? `${field}.paymasterSignerKey is the key of ${configured}, but the paymaster verifies ${onChain.result}`
        : undefined;
    checks.push({
      check: `${field}.contracts.paymaster verifies ${field}.paymasterSignerKey`,
      ...(problem ? { problem } : {}),
    });
    const entryPoint = answer(paymasterEntryPoint);
    const entryPointProblem =
      ok(entryPoint) && isAddressEqual(entryPoint.result as Address, wallet.entryPoint)
        ? undefined
        : `${field}.contracts.paymaster does not use ${field}.contracts.entryPoint (${ok(entryPoint) ? entryPoint.result : "no entryPoint()"})`;
    checks.push({
      check: `${field}.contracts.paymaster uses ${field}.contracts.entryPoint`,
      ...(entryPointProblem ? { problem: entryPointProblem } : {}),
    });
  }

  const tokenDomains: Record<string, TokenDomain | null> = {};
  network.tokens.forEach((token, i) => {
    const reads = tokenCalls[i];
    if (!reads) return;
    const what = `${field}.tokens.${i} (${token.symbol})`;
    const decimals = answer(reads.decimals);
    const decimalsProblem = !ok(decimals)
      ? `${what} has no decimals()`
      : Number(decimals.result) !== token.decimals
        ? `${field}.tokens.${i}.decimals is ${token.decimals}, but the token has ${decimals.result}`
        : undefined;
    checks.push({
      check: `${what} has ${token.decimals} decimals`,
      ...(decimalsProblem ? { problem: decimalsProblem } : {}),
    });
    const has3009 = ok(answer(reads.eip3009));
    checks.push({
      check: `${what} ${token.eip3009 ? "has" : "is configured without"} EIP-3009`,
      ...(has3009 === token.eip3009
        ? {}
        : {
            problem: `${field}.tokens.${i}.eip3009 is ${token.eip3009}, but the token ${has3009 ? "has" : "has no"} EIP-3009 (authorizationState)`,
          }),
    });
    const has2612 = ok(answer(reads.nonces)) && ok(answer(reads.separator));
    // Claimed and missing stops the start; present and not claimed only goes unused.
    checks.push({
      check: `${what} ${token.eip2612 ? "has" : "is configured without"} EIP-2612`,
      ...(token.eip2612 && !has2612
        ? {
            problem: `${field}.tokens.${i}.eip2612 is true, but the token has no EIP-2612 permit (nonces, DOMAIN_SEPARATOR)`,
          }
        : {}),
    });
    const domain = answer(reads.domain);
    const name = answer(reads.name);
    const version = answer(reads.version);
    const key = token.address.toLowerCase();
    if (ok(domain)) {
      const [, domainName, domainVersion] = domain.result as [unknown, string, string];
      tokenDomains[key] = { name: domainName, version: domainVersion };
    } else if (ok(name) && ok(version)) {
      tokenDomains[key] = { name: name.result as string, version: version.result as string };
    } else {
      tokenDomains[key] = null;
    }
    if ((token.eip3009 || token.eip2612) && !tokenDomains[key]) {
      checks.push({
        check: `${what} tells its EIP-712 name and version`,
        problem: `${what} has EIP-3009 or EIP-2612 in the config but answers neither eip712Domain() nor name() and version()`,
      });
    }
  });

  // Round trip 3: the factory's implementation is relay402's Account (its EIP-712 name says so).
  if (wallet && factoryOk) {
    const implementationAnswer = answer(implementation);
    let problem: string | undefined;
    if (!ok(implementationAnswer)) {
      problem = `${field}.contracts.factory has no accountImplementation() (not a relay402 WalletFactory?)`;
    } else {
      const [domain] = await readAll(
        client,
        [{ address: implementationAnswer.result as Address, abi: eip5267Abi, functionName: "eip712Domain" }],
        multicall,
      );
      const domainName = ok(domain) ? (domain.result as [unknown, string])[1] : undefined;
      if (domainName !== ACCOUNT_DOMAIN_NAME) {
        problem = `${field}.contracts.factory deploys ${implementationAnswer.result}, which is not relay402's Account (EIP-712 name ${domainName === undefined ? "unreadable" : JSON.stringify(domainName)})`;
      }
    }
    checks.push({ check: `${field}.contracts.factory deploys relay402's Account`, ...(problem ? { problem } : {}) });
  }
  return { checks, tokenDomains };
}
