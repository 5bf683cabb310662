import type { CircuitArtifacts } from "./incognito-pool-data.js";

// The circuit's setup output ships with the package (packages/client/circuit). Both this source file and its build
// (dist/incognito/index.js) sit two folders below the package root, so the same relative URLs find it from the
// repository and from node_modules. Literal strings: bundlers copy `new URL("…", import.meta.url)` assets only then.
const CIRCUIT_FILES = {
  descriptor: new URL("../../circuit/circuit.json", import.meta.url),
  wasm: new URL("../../circuit/unshield.wasm", import.meta.url),
  zkey: new URL("../../circuit/unshield.zkey", import.meta.url),
};

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
    const [descriptor, wasm, zkey] = await Promise.all([
      read(CIRCUIT_FILES.descriptor),
      read(CIRCUIT_FILES.wasm),
      read(CIRCUIT_FILES.zkey),
    ]);
    const { id } = JSON.parse(new TextDecoder().decode(descriptor)) as { id: string };
    return { id, wasm, zkey };
  })();
  packaged.catch(() => {
    packaged = undefined;
  });
  return packaged;
}
