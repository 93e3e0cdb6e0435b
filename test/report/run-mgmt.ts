/** Runs the built `mgmt` CLI as CI would: a separate process, its exit code, stdout and stderr. */
import { spawn } from "node:child_process";
import { repoPath } from "../../src/harness/paths";

export interface MgmtResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runMgmt(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<MgmtResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath("dist/cli.js"), ...args], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? "");
  });
}

/** The body of each `<details>` fold, by its summary text without the count. */
export function folds(markdown: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of markdown.matchAll(/<details(?: open)?><summary>(.*?) \([\d,]+\)<\/summary>\n([\s\S]*?)\n<\/details>/g)) out[m[1]!] = m[2]!;
  return out;
}
