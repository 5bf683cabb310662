// Merchant keys with their payTo addresses, from the config file and from MERCHANT_API_KEYS; the bare form of
// before still loads (it lifts the rate limit and lists nothing); a bad entry is refused at start naming the field,
// never quoting the key.
import { expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load";
import { merchantKeysOf } from "../../src/config/merchant-keys";
import { bscProductionConfig } from "../support/production-config";

const { env, file } = bscProductionConfig();
const SHOP = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const OTHER_SHOP = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

const refusal = (variable: string) => {
  try {
    loadConfig({ env: { ...env, MERCHANT_API_KEYS: variable }, file });
  } catch (error) {
    return (error as Error).message;
  }
  return "";
};

test("{ key, payTo } in the file, and key:0xPayTo… in MERCHANT_API_KEYS beside a bare key", () => {
  const overrides = { merchantApiKeys: [{ key: "merchant-key-from-file-001", payTo: [SHOP] }] };
  expect(merchantKeysOf(loadConfig({ env, file, overrides }))).toEqual([
    { key: "merchant-key-from-file-001", payTo: [SHOP.toLowerCase()] },
  ]);
  const config = loadConfig({
    env: { ...env, MERCHANT_API_KEYS: ` merchant-key-env-00001:${SHOP}:${OTHER_SHOP} , merchant-key-bare-0001` },
    file,
    overrides,
  });
  expect(merchantKeysOf(config)).toEqual([
    { key: "merchant-key-env-00001", payTo: [SHOP.toLowerCase(), OTHER_SHOP.toLowerCase()] },
    { key: "merchant-key-bare-0001", payTo: [] },
  ]);
});

test("a payTo that is no address, or a short key, is refused naming the entry and never the key", () => {
  const badAddress = refusal("merchant-key-env-00001:0x1234");
  expect(badAddress).toContain("merchantApiKeys.0");
  expect(badAddress).not.toContain("merchant-key-env-00001");
  const short = refusal(`short-key:${SHOP}`);
  expect(short).toContain("merchantApiKeys.0");
  expect(short).not.toContain("short-key");
  expect(refusal(`merchant-key-env-00001:${SHOP},merchant-key-env-00002:`)).toContain("merchantApiKeys.1");
});
