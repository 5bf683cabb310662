// relay402's facilitator address for x402's `upto` scheme (contracts/UptoForwarder.sol, design (b) of
// docs/x402.md#upto-who-may-settle): the payer's witness names the forwarder, the proxy lets only the named address
// settle, and the forwarder lets only its allowed executors through. Signed by x402's own upto client, settled on
// the devnet's canonical proxy; the chain's balances judge, and every attack moves no token.
import { describe, expect, test } from "bun:test";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { createPermit2ApprovalTx, UptoEvmScheme } from "@x402/evm/upto/client";
import { type Address, type Hex, parseAbi, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { CANONICAL } from "../../src/chain/canonical";
import { creationCode } from "../../src/operator/deploy/artifacts";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";

const PROXY = CANONICAL.x402UptoPermit2Proxy.address;
const settleAbi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "error NotExecutor(address caller)",
  "error UnauthorizedFacilitator()",
  "error AmountExceedsPermitted()",
]);
const forwarderAbi = parseAbi([
  "constructor(address proxy_, address owner_)",
  "function setExecutors(address[] executors, bool allowed)",
]);

type Network = (typeof NETWORK_NAMES)[number];
const chainIds: Record<Network, string> = { bsc: "eip155:56", base: "eip155:8453" };

async function fundedKey(network: Network): Promise<Hex> {
  const key = generatePrivateKey();
  await chainOf(network).test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("10") });
  return key;
}

/** The forwarder deployed by an owner, with one executor allowed. */
async function deployForwarder(network: Network) {
  const c = chainOf(network);
  const owner = await fundedKey(network);
  const hash = await c.walletFor(owner).deployContract({
    abi: forwarderAbi,
    bytecode: creationCode("UptoForwarder.sol", "UptoForwarder"),
    args: [PROXY, privateKeyToAccount(owner).address],
  });
  const address = (await c.public.waitForTransactionReceipt({ hash })).contractAddress as Address;
  const executor = await fundedKey(network);
  const allow = await c.walletFor(owner).writeContract({
    address,
    abi: forwarderAbi,
    functionName: "setExecutors",
    args: [[privateKeyToAccount(executor).address], true],
  });
  await c.public.waitForTransactionReceipt({ hash: allow });
  return { address, executor };
}

/** A payer that approved Permit2 and signed, with x402's upto client, a maximum of `max` for `payTo`. */
async function signedMaximum(network: Network, facilitator: Address, max: bigint) {
  const c = chainOf(network);
  const payer = await freshPayer(network);
  const approval = await c.walletFor(payer.key).sendTransaction(createPermit2ApprovalTx(c.token.address));
  await c.public.waitForTransactionReceipt({ hash: approval });
  const payTo = randomAddress();
  const requirements: PaymentRequirements = {
    scheme: "upto",
    network: chainIds[network] as PaymentRequirements["network"],
    asset: c.token.address,
    amount: max.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { facilitatorAddress: facilitator, assetTransferMethod: "permit2" },
  };
  const client = new x402Client().register("eip155:*", new UptoEvmScheme(privateKeyToAccount(payer.key)));
  client.setSpendControls({ allowedAssets: true });
  const resource = { url: "http://shop.test/metered", description: "metered", mimeType: "text/plain" };
  const payment = await client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
  const { permit2Authorization: p, signature } = payment.payload as {
    permit2Authorization: {
      from: Address;
      permitted: { token: Address; amount: string };
      nonce: string;
      deadline: string;
      witness: { to: Address; facilitator: Address; validAfter: string };
    };
    signature: Hex;
  };
  const args = (amount: bigint) =>
    [
      {
        permitted: { token: p.permitted.token, amount: BigInt(p.permitted.amount) },
        nonce: BigInt(p.nonce),
        deadline: BigInt(p.deadline),
      },
      amount,
      p.from,
      { to: p.witness.to, facilitator: p.witness.facilitator, validAfter: BigInt(p.witness.validAfter) },
      signature,
    ] as const;
  return { payer, payTo, args };
}

/** The node's verdict on a settle by `key`, without sending it. */
const simulated = (
  network: Network,
  key: Hex,
  address: Address,
  args: ReturnType<Awaited<ReturnType<typeof signedMaximum>>["args"]>,
) =>
  chainOf(network).public.simulateContract({
    account: privateKeyToAccount(key),
    address,
    abi: settleAbi,
    functionName: "settle",
    args,
  });

const refusal = async (attempt: Promise<unknown>) => {
  try {
    await attempt;
  } catch (error) {
    return String((error as Error).message ?? error);
  }
  throw new Error("the call was not refused");
};

for (const network of NETWORK_NAMES) {
  describe(`${network}: the upto forwarder`, () => {
    const c = chainOf(network);
    const unit = 10n ** BigInt(c.token.decimals);

    test("an allowed executor settles the metered amount, never above the signed maximum, once", async () => {
      const forwarder = await deployForwarder(network);
      const { payer, payTo, args } = await signedMaximum(network, forwarder.address, 5n * unit);
      const before = await tokenBalance(network, c.token.address, payer.address);
      const executor = c.walletFor(forwarder.executor);
      const over = simulated(network, forwarder.executor, forwarder.address, args(5n * unit + 1n));
      expect(await refusal(over)).toContain("AmountExceedsPermitted");
      const hash = await executor.writeContract({
        address: forwarder.address,
        abi: settleAbi,
        functionName: "settle",
        args: args(2n * unit),
      });
      expect((await c.public.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect(await tokenBalance(network, c.token.address, payTo)).toBe(2n * unit);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(before - 2n * unit);
      // The same authorization again, whatever the amount: Permit2's nonce is used.
      const replay = simulated(network, forwarder.executor, forwarder.address, args(1n));
      expect(await refusal(replay)).toMatch(/revert/i);
      expect(await tokenBalance(network, c.token.address, payTo)).toBe(2n * unit);
    });

    test("a stranger with the payer's signature settles nothing, through the forwarder or the proxy", async () => {
      const forwarder = await deployForwarder(network);
      const { payer, payTo, args } = await signedMaximum(network, forwarder.address, 5n * unit);
      const before = await tokenBalance(network, c.token.address, payer.address);
      const strangerKey = await fundedKey(network);
      const stranger = c.walletFor(strangerKey);
      const viaForwarder = simulated(network, strangerKey, forwarder.address, args(5n * unit));
      expect(await refusal(viaForwarder)).toContain("NotExecutor");
      const viaProxy = simulated(network, strangerKey, PROXY, args(5n * unit));
      expect(await refusal(viaProxy)).toContain("UnauthorizedFacilitator");
      // Sent anyway (no simulation): mined, reverted, nothing moved.
      const hash = await stranger.writeContract({
        address: forwarder.address,
        abi: settleAbi,
        functionName: "settle",
        args: args(5n * unit),
        gas: 300_000n,
      });
      expect((await c.public.waitForTransactionReceipt({ hash })).status).toBe("reverted");
      expect(await tokenBalance(network, c.token.address, payTo)).toBe(0n);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(before);
    });

    test("a witness naming another facilitator cannot be settled by our executors", async () => {
      const ours = await deployForwarder(network);
      const theirs = await deployForwarder(network);
      const { payTo, args } = await signedMaximum(network, theirs.address, 5n * unit);
      const attempt = simulated(network, ours.executor, ours.address, args(unit));
      expect(await refusal(attempt)).toContain("UnauthorizedFacilitator");
      expect(await tokenBalance(network, c.token.address, payTo)).toBe(0n);
    });
  });
}
