/**
 * Running one command inside something mgmt holds open for it (a throwaway API, a warm
 * provider), the way `env`, `timeout` and `tflocal` wrap one: the terminal is the command's,
 * signals are passed on, and mgmt exits with the command's status.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { isatty } from "node:tty";

/** Exit statuses of mgmt itself, the ones `env`, `timeout` and `docker run` use, so that they read apart from CMD's own. */
export const EXIT = { serverFailed: 125, notExecutable: 126, notFound: 127 } as const;

/** Where the command starts: the flags before the first `--` and the command after it (undefined without one). */
export function splitCommand(args: readonly string[]): { flags: string[]; command: string[] | undefined } {
  const separator = args.indexOf("--");
  return separator === -1 ? { flags: [...args], command: undefined } : { flags: args.slice(0, separator), command: args.slice(separator + 1) };
}

/** The exit status a shell gives for a child that ended with `code` or of `signal`. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/**
 * Runs CMD with this terminal as its stdio and resolves with the status mgmt should exit with.
 * A signal that arrives meanwhile is passed on to CMD, except a terminal's Ctrl-C: the terminal
 * sends SIGINT to the whole foreground process group, CMD included, and a second copy would
 * turn an engine's graceful stop into an immediate one. `who` names mgmt's subcommand in errors.
 */
export async function runWrapped(
  who: string,
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  /** Said on stderr when the command ends unsuccessfully after a SIGINT or SIGTERM reached mgmt: what the interruption left. */
  interrupted?: (signal: NodeJS.Signals) => string,
): Promise<number> {
  let child: ChildProcess | undefined;
  let signalled: NodeJS.Signals | undefined;
  const forward = (signal: NodeJS.Signals) => {
    signalled ??= signal;
    if (signal === "SIGINT" && isatty(0)) return;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  try {
    return await new Promise<number>((resolve) => {
      child = spawn(command[0]!, command.slice(1), { stdio: "inherit", env });
      child.once("error", (err: NodeJS.ErrnoException) => {
        process.stderr.write(`${who}: cannot run '${command[0]}': ${err.message}\n`);
        resolve(err.code === "ENOENT" ? EXIT.notFound : EXIT.notExecutable);
      });
      child.once("exit", (code, signal) => {
        const status = exitStatus(code, signal);
        if (status !== 0 && signalled !== undefined && interrupted !== undefined) process.stderr.write(`${who}: ${interrupted(signalled)}\n`);
        resolve(status);
      });
    });
  } finally {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  }
}
