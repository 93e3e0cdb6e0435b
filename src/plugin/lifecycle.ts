/**
 * The plugin process's signals and parent watch. Ctrl-C reaches the whole process group,
 * but the engine handles it by calling StopProvider, so SIGINT itself is ignored, as
 * go-plugin servers do. SIGTERM, which the engines also take as an interrupt and which may
 * reach the whole group too, ends the process, but only once the calls in progress have been
 * answered: a plugin that died at once would abandon writes the API may already have made.
 * Kept free of protobuf so it can be installed before the handshake.
 */
import { readFileSync } from "node:fs";
import { type Logger, errorFields } from "./log";

export interface ProcessGuardOptions {
  readonly exit: (code: number) => void;
  readonly log: Logger;
  /** How often to check that the engine is still there. */
  readonly parentPollMs?: number;
}

/** The longest a SIGTERM waits for `drain`: a stop must not hang on an API that no longer answers. */
const DRAIN_LIMIT_MS = 10_000;
/**
 * The longest a SIGTERM waits for the calls in progress to be answered. A write already sent is
 * finished, not abandoned: it ends by its answer or its request timeout (60 s by default), and a
 * create whose outcome that left unknown then searches for its object.
 */
const SETTLE_LIMIT_MS = 120_000;

const SETTLERS = Symbol.for("terraform-provider-mgmt.settle-before-exit");

/**
 * What a SIGTERM lets finish before the process ends: each provider's calls in progress. One set
 * per process, kept on the global object, because this module is bundled twice: into the bundle
 * that installs the guards and into dist/calls.js, whose provider service registers here.
 */
const settlers: Set<() => Promise<void>> = ((globalThis as { [SETTLERS]?: Set<() => Promise<void>> })[SETTLERS] ??= new Set());

/**
 * Registers `settle`, which a SIGTERM or SIGHUP runs and awaits before the process ends (stop the
 * provider, resolve once every call in progress has been answered); returns its removal.
 */
export function settleBeforeExit(settle: () => Promise<void>): () => void {
  settlers.add(settle);
  return () => settlers.delete(settle);
}

/**
 * The process's way out, with the guards installed: `exit` runs what `setCleanup` registered
 * last (the listening socket's folder) before it ends the process, as any other exit does.
 * SIGTERM and SIGHUP (a cancelled CI job may send either to the whole process group, plugins
 * included) first let the calls in progress finish (settleBeforeExit), as StopProvider does,
 * then wait for `drain` if given (at most DRAIN_LIMIT_MS).
 */
export function processLifetime(
  log: Logger,
  drain?: () => Promise<void>,
  options: { readonly watchParent?: boolean } = {},
): { exit: (code: number) => void; setCleanup: (cleanup: () => void) => void } {
  let cleanup = () => {};
  const exit = (code: number) => {
    cleanup();
    process.exit(code);
  };
  process.on("exit", () => cleanup());
  const within = (limitMs: number, work: () => Promise<void>, failed: string): Promise<void> => {
    const limit = new Promise<void>((resolve) => setTimeout(resolve, limitMs).unref());
    return Promise.race([work().catch((e: unknown) => log("warn", failed, errorFields(e))), limit]);
  };
  let terminating = false;
  const terminate = () => {
    if (terminating) return;
    terminating = true;
    const settle = async () => void (await Promise.all([...settlers].map((s) => s())));
    void within(SETTLE_LIMIT_MS, settle, "finishing the calls in progress failed")
      .then(() => drain && within(DRAIN_LIMIT_MS, drain, "stopping cleanly failed"))
      .finally(() => exit(0));
  };
  installProcessGuards({ exit, terminate, log, watchParent: options.watchParent ?? true });
  return { exit, setCleanup: (c) => (cleanup = c) };
}

function installProcessGuards(options: ProcessGuardOptions & { readonly terminate: () => void; readonly watchParent: boolean }): void {
  const { exit, terminate, log } = options;
  process.on("SIGINT", () => log("debug", "ignoring SIGINT; the engine cancels work through StopProvider"));
  // The default SIGTERM action skips 'exit' handlers and would leave the socket directory behind.
  process.on("SIGTERM", terminate);
  process.on("SIGHUP", terminate);
  // A stray rejection in provider code must not take down the process mid-apply; the
  // engine would only see "plugin crashed". Log it and carry on.
  process.on("unhandledRejection", (reason) => {
    log("error", "unhandled promise rejection in the provider", { error: reason instanceof Error ? reason.stack : String(reason) });
  });

  // If the engine dies without Shutdown (SIGKILL, crash) nobody would ever stop us. stdin is
  // no signal: go-plugin hands us the engine's own stdin (a terminal, /dev/null, or the pipe
  // feeding "yes" to apply), which we must neither read nor wait on. So watch the parent, but in
  // a shared host (shared-host.ts): its parent is a start long gone, and it ends on its own wait.
  if (!options.watchParent) return;
  whenParentGone(() => {
    log("warn", "the engine process is gone; exiting");
    exit(0);
  }, options.parentPollMs);
}

/** Calls `gone` once the process that started us has ended (a start that joined a shared host watches its engine so too). */
export function whenParentGone(gone: () => void, pollMs = 1000): void {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (parentAlive(parent)) return;
    clearInterval(watch);
    gone();
  }, pollMs).unref();
}

/** The parent pid as the kernel sees it now (process.ppid is fixed at start-up in Node 20). */
function procParent(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function parentAlive(original: number): boolean {
  const now = procParent();
  if (now !== undefined) return now === original;
  try {
    process.kill(original, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
