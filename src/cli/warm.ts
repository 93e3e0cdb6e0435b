/**
 * `mgmt warm [-- CMD ARGS...]`: the provider started once and attached to by every engine command
 * CMD runs (TF_REATTACH_PROVIDERS), instead of the three to five plugin processes an engine
 * starts, one after another, for each command. The provider is the package's own, beside this
 * bundle (dist/mirror, as `mgmt install-provider` installs it), run by src/plugin/warm.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROVIDER_EXECUTABLE, PROVIDER_SOURCE, PROVIDER_VERSION } from "../provider/identity";
import { parseFlags, settle } from "./args";
import { WINDOWS_REFUSAL } from "./install-provider";
import { reattachEntry, withReattach } from "./reattach";
import { writeGuard } from "./warm-guard";
import { EXIT, runWrapped, splitCommand } from "./wrapped-command";

const USAGE = `usage: mgmt warm [-- CMD [ARGS...]]

Starts terraform-provider-mgmt ${PROVIDER_VERSION} once, as a process Terraform and OpenTofu attach
to through TF_REATTACH_PROVIDERS, instead of the three to five plugin processes each engine
command otherwise starts and waits for. Each engine command (and each provider block in it)
still gets a provider of its own, configured afresh.

With CMD: runs CMD with TF_REATTACH_PROVIDERS set and this terminal as its stdio, then stops
the provider. Every engine command CMD runs uses it:

  mgmt warm -- cdktf deploy --auto-approve
  mgmt warm -- sh -c 'tofu plan -out=tfplan && tofu apply tfplan'

Without CMD: prints the line to set in another shell, and serves until Ctrl-C or SIGTERM.

The provider reads its settings from the environment mgmt warm was started in (MGMT_URL,
MGMT_TOKEN, TF_LOG and the rest, unless the provider block sets them), not from each command's,
and writes its log lines to this stderr rather than into the engine's log. So a tofu or
terraform command CMD runs with another MGMT_URL or MGMT_TOKEN is refused (exit 1), never run
as mgmt warm's: CMD finds tofu and terraform first on PATH as a check that then runs the real one. The
engines do not check .terraform.lock.hcl for a provider they attach to: this is the
provider of this mgmt package, whatever version the lock file records. An init run
through mgmt warm records none, so run init again before engine commands without it.

exit status: CMD's own; 128 + N when signal N ended it; ${EXIT.serverFailed} when the provider could not start
(CMD did not run); ${EXIT.notExecutable} when CMD cannot be run, ${EXIT.notFound} when it is not found; 2 for bad arguments.
`;

export async function runWarm(args: string[]): Promise<number> {
  const { flags, command } = splitCommand(args);
  const parsed = settle("warm", USAGE, parseFlags(flags, {}));
  if ("exit" in parsed) return parsed.exit;
  if (command !== undefined && command.length === 0) {
    process.stderr.write(`mgmt warm: nothing after '--': name the command to run, as in: mgmt warm -- tofu plan\n${USAGE}`);
    return 2;
  }
  if (process.platform === "win32") {
    process.stderr.write(`mgmt warm: ${WINDOWS_REFUSAL}\n`);
    return 1;
  }

  const started = await startProvider();
  if ("problem" in started) {
    process.stderr.write(`mgmt warm: the provider could not start: ${started.problem}\n`);
    return EXIT.serverFailed;
  }
  const { provider, reattach } = started;
  try {
    if (command) {
      const guard = writeGuard(process.env);
      try {
        return await runWrapped("mgmt warm", command, { ...process.env, ...guard.env, TF_REATTACH_PROVIDERS: reattach }, interruptedNote);
      } finally {
        guard.remove();
      }
    }
    // The signal handlers go in before the line is out: whoever reads it may stop us at once.
    const stopped = untilStopped(provider);
    // Single-quoted for a POSIX shell: a quote inside (a folder's name) is closed, escaped and reopened.
    process.stdout.write(`export TF_REATTACH_PROVIDERS='${reattach.replaceAll("'", "'\\''")}'\n`);
    process.stderr.write(
      "mgmt warm: serving the provider to engines run with that variable; Ctrl-C stops it. It acts with this shell's MGMT_URL and MGMT_TOKEN, whatever the engine commands' are\n",
    );
    return await stopped;
  } finally {
    await stop(provider);
  }
}

/** The provider package's launcher beside this bundle, for this machine. */
function pluginLauncher(): string | undefined {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const file = join(__dirname, "mirror", PROVIDER_SOURCE, PROVIDER_VERSION, `${process.platform}_${arch}`, PROVIDER_EXECUTABLE);
  return existsSync(file) ? file : undefined;
}

async function startProvider(): Promise<{ provider: ChildProcess; reattach: string } | { problem: string }> {
  const launcher = pluginLauncher();
  if (!launcher) return { problem: `no provider package for ${process.platform}/${process.arch} beside ${__dirname}; run npm run build first` };
  // The launcher the engines start, so that node runs with the same flags (V8 rejects a code cache
  // made under other flags, and the engines' starts share its folder) and the same environment.
  const provider = spawn(launcher, ["--warm"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await firstLine(provider);
  if (line === undefined) return { problem: `it exited (${describeExit(provider)}) before it was ready; its errors are above` };
  // Only provider code that prints (it should not) writes here after the line: keep it visible.
  provider.stdout!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  const entry = reattachEntry(line, provider.pid!);
  const value = "problem" in entry ? entry : withReattach(process.env.TF_REATTACH_PROVIDERS, PROVIDER_SOURCE, entry);
  if ("problem" in value) {
    await stop(provider);
    return value;
  }
  return { provider, reattach: value.value };
}

/** The provider's first stdout line, or undefined when it exits first. */
function firstLine(child: ChildProcess): Promise<string | undefined> {
  return new Promise((resolve) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const end = seen.indexOf("\n");
      if (end === -1) return;
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
      if (end + 1 < seen.length) process.stderr.write(seen.slice(end + 1));
      resolve(seen.slice(0, end));
    };
    const onExit = () => resolve(undefined);
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Serves until SIGINT or SIGTERM (0), or until the provider ends on its own (1). */
function untilStopped(provider: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const done = (code: number) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      provider.off("exit", onExit);
      resolve(code);
    };
    const onSignal = () => done(0);
    const onExit = () => {
      process.stderr.write(`mgmt warm: the provider ended (${describeExit(provider)})\n`);
      done(1);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    provider.once("exit", onExit);
  });
}

/** SIGTERM (the provider ignores SIGINT, as engines' plugins do), and wait for it to be gone. */
async function stop(provider: ChildProcess): Promise<void> {
  if (provider.exitCode !== null || provider.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => provider.once("exit", () => resolve()));
  provider.kill("SIGTERM");
  await gone;
}

function describeExit(child: ChildProcess): string {
  return child.signalCode ? `signal ${child.signalCode}` : `status ${child.exitCode}`;
}

/**
 * What an interrupted engine run left, said after the engine's own words (cdktf's only are "AbortError: The
 * operation was aborted"): the provider finishes every write it had sent before the engine records and exits.
 */
export const interruptedNote = (signal: NodeJS.Signals): string =>
  `${signal === "SIGINT" ? "interrupted (Ctrl-C)" : `interrupted (${signal})`}. The state holds every object created before the stop: the provider finished the writes it had sent, and the engine recorded them. Run the same command again to go on. After a forced stop (a second Ctrl-C or SIGTERM, a kill), an object the API made may be in no state: the next plan names each one ("already exists outside the state") with the import that adopts it.`;
