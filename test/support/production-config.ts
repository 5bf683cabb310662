import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";

/**
 * A production config of bsc that loads without any chain (unreachable RPC and bundler URLs): the environment,
 * with one fresh key as executor and paymaster signer, and the config file beside it (test/config/fixtures/bsc.json).
 */
export function bscProductionConfig() {
  const key = generatePrivateKey();
  const env = {
    ADMIN_API_KEY: "a-production-admin-key-000",
    BSC_RPC_URLS: "http://127.0.0.1:1",
    BSC_BUNDLER_URL: "http://127.0.0.1:3",
    BSC_EXECUTOR_KEYS: key,
    BSC_PAYMASTER_SIGNER_KEY: key,
  };
  return { env, file: join(import.meta.dir, "..", "config", "fixtures", "bsc.json") };
}
