import { describe, expect, test } from "bun:test";
import { domainSeparator, parseAbi } from "viem";
import { permit2RuntimeCode, placeCanonicalContracts } from "../../scripts/devnet/canonical";
import { PERMIT2, permit2Domain, X402_EXACT_PERMIT2_PROXY, x402ExactPermit2ProxyAbi } from "../../src/x402/permit2";
import { chainOf, NETWORK_NAMES } from "../support/chain";

const domainSeparatorAbi = parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]);

describe("Permit2 and x402's exact proxy on the devnet", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: both canonical addresses hold code, and the proxy points at Permit2`, async () => {
      const c = chainOf(network);
      expect(await c.public.getCode({ address: PERMIT2 })).toBe(permit2RuntimeCode(c.info.chainId) as never);
      expect((await c.public.getCode({ address: X402_EXACT_PERMIT2_PROXY }))?.length ?? 0).toBeGreaterThan(2);
      expect(
        await c.public.readContract({
          address: X402_EXACT_PERMIT2_PROXY,
          abi: x402ExactPermit2ProxyAbi,
          functionName: "PERMIT2",
        }),
      ).toBe(PERMIT2);
      // Etched code computes its EIP-712 domain for the chain it runs on.
      const separator = await c.public.readContract({
        address: PERMIT2,
        abi: domainSeparatorAbi,
        functionName: "DOMAIN_SEPARATOR",
      });
      expect(separator).toBe(domainSeparator({ domain: permit2Domain(c.info.chainId) }));
    });
  }

  test("a second run (a fork that has them) leaves both in place and sends nothing", async () => {
    const c = chainOf("bsc");
    const before = await c.public.getBlockNumber();
    await placeCanonicalContracts(c.info.rpcUrl, c.chain);
    expect(await c.public.getBlockNumber()).toBe(before);
  });
});
