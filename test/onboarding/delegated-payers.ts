// EIP-7702-delegated payers for the funded-approve tests: delegates' runtime code, deployed on the devnet, and a
// token-only payer delegated to one (eoa-funded-approve-delegated.test.ts, test/webhooks/events-onboarding.test.ts).
import { expect } from "bun:test";
import type { Address, Hex } from "viem";
import { chainOf, freshPayer } from "../support/chain";
import { until } from "../support/until";
import { type Net, tokenOnlyPayer } from "./funded-approve-support";

/**
 * Runtime code of the delegates: accept coins and log them, as a wallet's receive() does (LOG1 of the value, topic the
 * sender: about 1,000 gas); revert anything; forward every coin received to `to`.
 */
export const ACCEPTS = "345f523360205fa100";
export const REFUSES = "5f5ffd";
export const forwardsTo = (to: Address) => `5f5f5f5f4773${to.slice(2).toLowerCase()}5af100`;

/** Deploys `runtime` (hex, no 0x) as a contract: its init code copies and returns it. */
export async function deployDelegate(network: Net, runtime: string): Promise<Address> {
  const c = chainOf(network);
  const length = (runtime.length / 2).toString(16).padStart(2, "0");
  const init = `0x60${length}600c60003960${length}6000f3${runtime}` as Hex;
  const deployer = await freshPayer(network, { tokens: 0n });
  const hash = await c.walletFor(deployer.key).sendTransaction({ data: init, gas: 200_000n });
  const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (!receipt.contractAddress) throw new Error("not deployed");
  return receipt.contractAddress;
}

/**
 * A token-only payer delegated to `delegate` (its own type-4 transaction, paid by coins set for it and then taken
 * back): no native coins, code `0xef0100 ‖ delegate`, nonce 2 (the transaction and its authorization).
 */
export async function delegatedPayer(network: Net, delegate: Address) {
  const c = chainOf(network);
  const payer = await tokenOnlyPayer(network);
  await c.test.setBalance({ address: payer.address, value: 10n ** 16n });
  const wallet = c.walletFor(payer.key);
  const authorization = await wallet.signAuthorization({ contractAddress: delegate, executor: "self" });
  const hash = await wallet.sendTransaction({ to: payer.address, authorizationList: [authorization], gas: 100_000n });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  await c.test.setBalance({ address: payer.address, value: 0n });
  // The approve is signed at the pending nonce, which anvil may still count from its pool for a moment after the receipt.
  await until(
    "the payer's pending nonce to be 2",
    async () => (await c.public.getTransactionCount({ address: payer.address, blockTag: "pending" })) === 2,
  );
  expect(await c.public.getCode({ address: payer.address })).toBe(`0xef0100${delegate.slice(2).toLowerCase()}`);
  return payer;
}
