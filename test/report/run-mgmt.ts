/** Runs the built `mgmt` CLI as CI would: a separate process, its exit code, stdout and stderr. */
import { repoPath } from "../../src/harness/paths";
import { runProcess, type ProcessResult } from "../../src/harness/process";

export type MgmtResult = ProcessResult;

export function runMgmt(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<MgmtResult> {
  return runProcess(process.execPath, [repoPath("dist/cli.js"), ...args], { ...opts, input: opts.input ?? "" });
}

/** The body of each `<details>` fold, by its summary text without the count. */
export function folds(markdown: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of markdown.matchAll(/<details(?: open)?><summary>(.*?) \([\d,]+\)<\/summary>\n([\s\S]*?)\n<\/details>/g)) out[m[1]!] = m[2]!;
  return out;
}
