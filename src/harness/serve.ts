/** A real `mgmt serve` process for tests, examples and the main job. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { repoPath } from "./paths";

export interface RunningServer {
  readonly url: string;
  readonly token: string;
  readonly process: ChildProcess;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `cli` is the bundle to run: this checkout's by default, or one from an installed package. */
export async function startServe(
  args: string[] = ["--port", "0", "--db", ":memory:"],
  env: NodeJS.ProcessEnv = process.env,
  cli: string = repoPath("dist/cli.js"),
): Promise<RunningServer> {
  const child = spawn(process.execPath, [cli, "serve", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    lines.once("line", (line) => {
      try {
        resolve(JSON.parse(line) as { url: string; token: string });
      } catch {
        reject(new Error(`mgmt serve printed an unexpected first line: ${line}`));
      }
    });
    void exited.then((code) => reject(new Error(`mgmt serve exited with ${code} before it was ready:\n${stderr}`)));
  });
  return {
    ...ready,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
