import { fromRpcUserOp, type RpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import { type Hex, isAddress } from "viem";
import type { IssuedUserOp } from "../db/schema";
import { refuse } from "./invalid";
import type { AsyncIssuedUserOpStore } from "./issued-user-op-store";
import { checkOwnerSignature, differingFields } from "./user-op-match";
import type { UserOpNetwork } from "./user-op-network";

/** A signed UserOp matched to what a verify endpoint issued. */
export type LocatedUserOp = { network: UserOpNetwork; hash: Hex; record: IssuedUserOp };

/**
 * The issue of `kind` this UserOp is, on one of `networks` (its hash, chain id included, decides). A UserOp that
 * matches none is refused naming what changed against the newest issues to its sender (a bounded look), or as
 * unknown. `issuedBy` names the verify endpoint in the messages.
 */
export async function locateIssuedUserOp(
  deps: { store: AsyncIssuedUserOpStore; now: number },
  networks: readonly UserOpNetwork[],
  kind: IssuedUserOp["kind"],
  op: RpcUserOp,
  issuedBy: string,
): Promise<LocatedUserOp> {
  // The schema takes any case; hashing (ABI encoding) refuses a mixed-case address whose EIP-55 checksum is wrong.
  for (const field of ["sender", "paymaster", "factory"] as const) {
    const value = op[field];
    if (value !== undefined && !isAddress(value)) {
      throw refuse(`userOp.${field}`, `userOp.${field} is not an address: its mixed case is not its EIP-55 checksum`);
    }
  }
  const unpacked = fromRpcUserOp(op);
  for (const network of networks) {
    const hash = userOpHash(unpacked, network.runtime.config.chainId, network.entryPoint);
    const record = await deps.store.find(hash);
    // Other kinds have settle routes of their own, with their own records.
    if (record?.kind === kind && record.network === network.runtime.name) return { network, hash, record };
  }
  let closest: string[] | undefined;
  for (const network of networks) {
    for (const issued of await deps.store.recentIssued(network.runtime.name, op.sender, kind, deps.now)) {
      const fields = differingFields(JSON.parse(issued.userOp), op);
      if (!closest || fields.length < closest.length) closest = fields;
    }
  }
  if (closest && closest.length > 0) {
    const fields = closest.map((field) => `userOp.${field}`);
    throw refuse(
      fields[0] as string,
      `${fields.join(", ")} differs from the UserOp issued by ${issuedBy}; only signature may change`,
      { fields },
    );
  }
  throw refuse("userOp", `unknown UserOp: it was not issued by ${issuedBy} (call verify first)`);
}

/** Before anything is sent: the issue has not expired and the signature is the owner's over `userOpHash`. */
export async function assertSignedByOwner(located: LocatedUserOp, signature: Hex, now: number): Promise<void> {
  const { record, hash } = located;
  if (record.status === "issued" && record.expiresAt <= now) {
    throw refuse("userOp.paymasterData", "UserOp expired, call verify again", { expiresAt: record.expiresAt });
  }
  const signer = await checkOwnerSignature(hash, signature, record.owner);
  if (signer === "malformed") throw refuse("signature", "signature is not a valid ECDSA signature");
  if (signer === "other") throw refuse("signature", "signature does not recover to the wallet's owner over userOpHash");
}
