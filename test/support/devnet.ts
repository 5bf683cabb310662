import type { Devnet } from "../../scripts/devnet/start";

type TestDevnet = { devnet: Devnet; dir: string; startupMs: number };
let current: TestDevnet | undefined;

export function setTestDevnet(devnet: Devnet, info: { dir: string; startupMs: number }): void {
  current = { devnet, ...info };
}

/** The devnet the preload started for this run. */
export function getTestDevnet(): TestDevnet {
  if (!current) throw new Error("test devnet not started: run tests through `bun test` (bunfig preload)");
  return current;
}
