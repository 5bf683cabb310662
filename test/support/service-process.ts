// relay402 as an operator runs it: a process of its own (`bun src/main.ts` or the compiled binary) with its config
// from a file and the environment, answering on a free port. Stopped by its PID.
import { freePort } from "../../scripts/devnet/ports";

export type ServiceProcess = { url: string; stop(): Promise<void> };

/** Starts `command` with `env` (HOST and PORT added) and waits for /health to answer 2xx, at most 20 s. */
export async function startServiceProcess(command: string[], env: Record<string, string>, cwd: string) {
  const port = await freePort();
  const service = Bun.spawn(command, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (service.exitCode === null) service.kill("SIGKILL");
    await service.exited;
  };
  let up = false;
  for (let attempt = 0; attempt < 200 && !up && service.exitCode === null; attempt++) {
    up = await fetch(`${url}/health`)
      .then((response) => response.ok)
      .catch(() => false);
    if (!up) await Bun.sleep(100);
  }
  if (!up) {
    await stop();
    throw new Error(`the service did not start: ${await new Response(service.stderr).text()}`);
  }
  return { url, stop } satisfies ServiceProcess;
}
