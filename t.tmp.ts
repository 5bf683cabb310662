import { Instance } from "prool";
import { createPublicClient, http, keccak256 } from "viem";
import { devnetChain } from "./scripts/devnet/chain";
import { placeCanonicalContracts } from "./scripts/devnet/canonical";
import { CANONICAL, canonicalCodeState } from "./src/chain/canonical";
const anvil = Instance.anvil({ binary: "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil", port: 18546, chainId: 56 } as any);
await anvil.start();
try {
  const url = "http://127.0.0.1:18546"; const chain = devnetChain(56, "x", url);
  const t = performance.now();
  await placeCanonicalContracts(url, chain);
  console.log("placed in", performance.now()-t);
  const pub = createPublicClient({ chain, transport: http(url) });
  for (const c of Object.values(CANONICAL)) console.log(c.name, canonicalCodeState(c, await pub.getCode({address: c.address})));
} finally { await anvil.stop(); }
