import { ROUTER_KIND } from "@relay402/client/wire/swap/abis";
import {
  type Address,
  encodeFunctionData,
  formatEther,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  zeroAddress,
} from "viem";
import { CANONICAL } from "../../chain/canonical";

const relayerAbi = parseAbi([
  "function isTokenWhitelisted(address token) view returns (bool)",
  "function setTokenWhitelisted(address token, bool allowed)",
  "function routerKind(address router) view returns (uint8)",
  "function setRouter(address router, uint8 kind)",
  "function feeRecipient() view returns (address)",
  "function setFeeRecipient(address recipient)",
]);
const paymasterAbi = parseAbi([
  "function verifyingSigner() view returns (address)",
  "function setVerifyingSigner(address signer)",
  "function deposit() payable",
  "function addStake(uint32 unstakeDelaySec) payable",
]);
const ownableAbi = parseAbi([
  "function owner() view returns (address)",
  "function pendingOwner() view returns (address)",
  "function transferOwnership(address newOwner)",
  "function acceptOwnership()",
]);
const entryPointAbi = parseAbi([
  "function getDepositInfo(address account) view returns ((uint256 deposit, bool staked, uint112 stake, uint32 unstakeDelaySec, uint48 withdrawTime))",
]);

/** A setup transaction, needed only while the chain is not yet in the state it sets. */
export type SetupCall = {
  description: string;
  to: Address;
  data: Hex;
  value: bigint;
  /** Only the contract's owner may send it; when the deploy key no longer owns the contract, the owner must. */
  ownerOnly: boolean;
  /** Its gas when it cannot be estimated (its contract is not deployed yet): above what it uses (the rehearsal checks). */
  gasIfUndeployed: bigint;
};

export type SetupTargets = {
  deployer: Address;
  relayer?: { address: Address; deployed: boolean };
  paymaster?: { address: Address; deployed: boolean };
  tokens: { symbol: string; address: Address }[];
  swaps?: { routers: { address: Address; kind: "v2" | "v3" }[]; feeRecipient: Address };
  paymasterSigner: Address;
  /** The paymaster's EntryPoint deposit is topped up to this many wei. */
  paymasterDeposit: bigint;
  /** The paymaster's stake (a bundler enforcing ERC-7562 needs one: it reads its signer from storage). */
  paymasterStake: { amount: bigint; unstakeDelaySec: number };
  /** Proposed as the new owner of the relayer and the paymaster (two-step: nothing moves until it accepts). */
  newOwner?: Address;
};

/** What the setup would change, read from the chain: a contract not deployed yet needs everything. */
export async function setupCalls(client: PublicClient, targets: SetupTargets): Promise<SetupCall[]> {
  const calls: SetupCall[] = [];
  const { relayer, paymaster } = targets;
  const read = <T>(deployed: boolean, fallback: T, reader: () => Promise<T>) =>
    deployed ? reader() : Promise.resolve(fallback);

  if (relayer) {
    const at = relayer.address;
    for (const token of targets.tokens) {
      const listed = await read(relayer.deployed, false, () =>
        client.readContract({
          address: at,
          abi: relayerAbi,
          functionName: "isTokenWhitelisted",
          args: [token.address],
        }),
      );
      if (!listed) {
        calls.push({
          description: `Relayer.setTokenWhitelisted(${token.symbol} ${token.address}, true)`,
          to: at,
          data: encodeFunctionData({
            abi: relayerAbi,
            functionName: "setTokenWhitelisted",
            args: [token.address, true],
          }),
          value: 0n,
          ownerOnly: true,
          gasIfUndeployed: 100_000n,
        });
      }
    }
    for (const router of targets.swaps?.routers ?? []) {
      const kind = await read(relayer.deployed, 0, () =>
        client.readContract({ address: at, abi: relayerAbi, functionName: "routerKind", args: [router.address] }),
      );
      if (kind !== ROUTER_KIND[router.kind]) {
        calls.push({
          description: `Relayer.setRouter(${router.address}, ${router.kind})`,
          to: at,
          data: encodeFunctionData({
            abi: relayerAbi,
            functionName: "setRouter",
            args: [router.address, ROUTER_KIND[router.kind]],
          }),
          value: 0n,
          ownerOnly: true,
          gasIfUndeployed: 50_000n,
        });
      }
    }
    if (targets.swaps) {
      const recipient = targets.swaps.feeRecipient;
      const current = await read(relayer.deployed, zeroAddress, () =>
        client.readContract({ address: at, abi: relayerAbi, functionName: "feeRecipient" }),
      );
      if (!isAddressEqual(current, recipient)) {
        calls.push({
          description: `Relayer.setFeeRecipient(${recipient}) (swap fees)`,
          to: at,
          data: encodeFunctionData({ abi: relayerAbi, functionName: "setFeeRecipient", args: [recipient] }),
          value: 0n,
          ownerOnly: true,
          gasIfUndeployed: 50_000n,
        });
      }
    }
  }

  if (paymaster) {
    const at = paymaster.address;
    const signer = await read(paymaster.deployed, targets.paymasterSigner, () =>
      client.readContract({ address: at, abi: paymasterAbi, functionName: "verifyingSigner" }),
    );
    if (!isAddressEqual(signer, targets.paymasterSigner)) {
      calls.push({
        description: `Paymaster.setVerifyingSigner(${targets.paymasterSigner})`,
        to: at,
        data: encodeFunctionData({
          abi: paymasterAbi,
          functionName: "setVerifyingSigner",
          args: [targets.paymasterSigner],
        }),
        value: 0n,
        ownerOnly: true,
        gasIfUndeployed: 40_000n,
      });
    }
    const info = await read(
      paymaster.deployed,
      { deposit: 0n, staked: false, stake: 0n, unstakeDelaySec: 0, withdrawTime: 0 },
      () =>
        client.readContract({
          address: CANONICAL.entryPointV07.address,
          abi: entryPointAbi,
          functionName: "getDepositInfo",
          args: [at],
        }),
    );
    if (info.deposit < targets.paymasterDeposit) {
      const value = targets.paymasterDeposit - info.deposit;
      calls.push({
        description: `Paymaster.deposit() with ${formatEther(value)} (EntryPoint deposit to ${formatEther(targets.paymasterDeposit)})`,
        to: at,
        data: encodeFunctionData({ abi: paymasterAbi, functionName: "deposit" }),
        value,
        ownerOnly: false,
        gasIfUndeployed: 60_000n,
      });
    }
    const { amount, unstakeDelaySec } = targets.paymasterStake;
    if (amount > 0n && (info.stake < amount || info.unstakeDelaySec < unstakeDelaySec)) {
      const value = amount > info.stake ? amount - info.stake : 0n;
      calls.push({
        description: `Paymaster.addStake(${unstakeDelaySec}) with ${formatEther(value)} (stake to ${formatEther(amount)})`,
        to: at,
        data: encodeFunctionData({ abi: paymasterAbi, functionName: "addStake", args: [unstakeDelaySec] }),
        value,
        ownerOnly: true,
        gasIfUndeployed: 90_000n,
      });
    }
  }
  return calls;
}

export type OwnershipState = {
  contract: string;
  address: Address;
  owner: Address;
  pendingOwner: Address;
};

/** Who owns the relayer and the paymaster now (a contract not deployed yet will be owned by the deploy key). */
export async function ownershipStates(client: PublicClient, targets: SetupTargets): Promise<OwnershipState[]> {
  const owned = [
    ["Relayer", targets.relayer],
    ["Paymaster", targets.paymaster],
  ] as const;
  const states: OwnershipState[] = [];
  for (const [contract, target] of owned) {
    if (!target) continue;
    if (!target.deployed) {
      states.push({ contract, address: target.address, owner: targets.deployer, pendingOwner: zeroAddress });
      continue;
    }
    const [owner, pendingOwner] = await Promise.all([
      client.readContract({ address: target.address, abi: ownableAbi, functionName: "owner" }),
      client.readContract({ address: target.address, abi: ownableAbi, functionName: "pendingOwner" }),
    ]);
    states.push({ contract, address: target.address, owner, pendingOwner });
  }
  return states;
}

/** The proposal to `newOwner` where the deploy key still owns the contract and has not proposed it yet. */
export function ownershipCalls(
  states: OwnershipState[],
  deployer: Address,
  newOwner: Address | undefined,
): SetupCall[] {
  if (!newOwner) return [];
  return states
    .filter(
      (state) =>
        isAddressEqual(state.owner, deployer) &&
        !isAddressEqual(state.owner, newOwner) &&
        !isAddressEqual(state.pendingOwner, newOwner),
    )
    .map((state) => ({
      description: `${state.contract}.transferOwnership(${newOwner}) (takes effect when it calls acceptOwnership())`,
      to: state.address,
      data: encodeFunctionData({ abi: ownableAbi, functionName: "transferOwnership", args: [newOwner] }),
      value: 0n,
      ownerOnly: true,
      gasIfUndeployed: 60_000n,
    }));
}
