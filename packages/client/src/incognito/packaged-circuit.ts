import type { CircuitArtifacts } from "./incognito-pool-data.js";

// The circuit's setup output ships with the package (packages/client/circuit). Both this source file and its build
// (dist/incognito/index.js) sit two folders below the package root, so one relative URL finds it from the
// repository, from node_modules, and in a bundler that copies `new URL(..., import.meta.url)` assets.
const circuitFile = (name: string) => new URL(`../../circuit/${name}`, import.meta.url);

async function read(url: URL): Promise<Uint8Array> {
  if (url.protocol === "file:") {
    // Node 20's fetch does not read file: URLs. Imported only here, so a browser bundle never loads node:fs.
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ "node:fs/promises");
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.href} answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

let packaged: Promise<CircuitArtifacts & { id: string }> | undefined;

/**
 * The circuit shipped with this package: its setup id (to compare with the pool's `circuitId` in /config) and
 * its wasm and zkey as bytes, read once. `proveUnshieldNote` uses it when its id is the pool's, else the service's.
 */
export function packagedCircuit(): Promise<CircuitArtifacts & { id: string }> {
  packaged ??= (async () => {
    const descriptor = JSON.parse(new TextDecoder().decode(await read(circuitFile("circuit.json")))) as {
      id: string;
      wasm: { file: string };
      zkey: { file: string };
    };
    const [wasm, zkey] = await Promise.all([
      read(circuitFile(descriptor.wasm.file)),
      read(circuitFile(descriptor.zkey.file)),
    ]);
    return { id: descriptor.id, wasm, zkey };
  })();
  packaged.catch(() => {
    packaged = undefined;
  });
  return packaged;
}
