import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { parseEther } from "viem";
import { startRehearsalChain } from "./test/support/rehearsal-chain";
import { buildContracts } from "./scripts/devnet/build";
buildContracts();
for (const id of [56, 8453] as const) {
  const c = await startRehearsalChain(id);
  try {
    const key = generatePrivateKey();
    await c.test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("10") });
    for (const features of ["payments,smart-wallets,x402", "payments,smart-wallets,x402,swaps,incognito"]) {
      const p = Bun.spawnSync([process.execPath, "scripts/deploy.ts", "--network", id === 56 ? "bsc" : "base", "--rpc-url", c.rpcUrl, "--dry-run", "--features", features, "--allow-untrusted-setup"], { env: { PATH: process.env.PATH, DEPLOYER_KEY: key, [id===56?"BSC_PAYMASTER_SIGNER_KEY":"BASE_PAYMASTER_SIGNER_KEY"]: generatePrivateKey() } });
      console.log(`== ${id} ${features}\n` + p.stdout.toString() + p.stderr.toString());
    }
  } finally { await c.stop(); }
}
