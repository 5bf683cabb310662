// Prints what each entry costs a browser bundle: ESM, minified, gzipped, with its own code and the small
// dependencies it pulls in (@zk-kit/lean-imt and poseidon-lite for incognito), without viem and without snarkjs
// (peers the application brings; @sinclair/typebox is used for types only and is not in the output).
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const entries = { "@relay402/client": "src/index.ts", "@relay402/client/incognito": "src/incognito/index.ts" };

for (const [name, entry] of Object.entries(entries)) {
  const result = await Bun.build({
    entrypoints: [join(root, entry)],
    target: "browser",
    format: "esm",
    minify: true,
    external: ["viem", "viem/*", "snarkjs", "ffjavascript"],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
  const code = new Uint8Array(await result.outputs[0]!.arrayBuffer());
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
  console.log(`${name}: ${kb(code.length)} minified, ${kb(Bun.gzipSync(code).length)} gzip`);
}
