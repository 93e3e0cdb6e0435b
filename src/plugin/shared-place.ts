/**
 * Where a plugin start finds the process it can share (shared-host.ts): the engines start the
 * plugin three to five times per command, each start a cold process, and the commands of a loop
 * (plan, apply, plan again) start it again. The first start leaves a host behind, and the later
 * ones join it (shared-join.ts), so they run code that is already loaded, compiled and warm.
 *
 * One host per build, working folder and environment: a start joins only a host that acts exactly
 * as it would itself (the same MGMT_URL and token, the same TF_LOG, the same proxy settings). The
 * name is a SHA-256 of those, so it says nothing of the token, and the host checks them again when
 * a start joins. The socket lives in the user's private cache folder (compile-cache.ts
 * cacheFolder: 0700, ours, nobody else can write to it).
 */
import { statSync } from "node:fs";
import { join } from "node:path";

/** The longest socket path we use: sockaddr_un holds 108 bytes on Linux, 104 on macOS, with the final NUL. */
const MAX_SOCKET_PATH = 103;

/**
 * The environment variable that sets sharing: "off" (or "0", "false", "no") turns it off; a number
 * is how many seconds a host waits for the next start after its last session; anything else, or
 * nothing, is on with IDLE_S.
 */
export const SHARED_SETTING = "MGMT_PLUGIN_SHARED";
/** How long a host waits for a start after its last session, by default: the next command of a loop comes within it. */
const IDLE_S = 30;

/**
 * What differs between an engine's starts of one command, and so is not part of what a host must
 * match: the engine's certificate, fresh per start, and the protocol versions, which go-plugin lists
 * from a map, so in any order ("5,6", "6,5"). A start's offer is still checked (handshake.ts).
 */
export const PER_START = new Set(["PLUGIN_CLIENT_CERT", "PLUGIN_PROTOCOL_VERSIONS"]);

export function sharingEnabled(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): boolean {
  // go-plugin has no unix sockets on Windows, and this host would need them.
  if (platform === "win32") return false;
  return idleMs(env) > 0;
}

/** How long a host waits for the next start after its last session (SHARED_SETTING); 0 when sharing is off. */
export function idleMs(env: NodeJS.ProcessEnv): number {
  const setting = (env[SHARED_SETTING] ?? "").trim().toLowerCase();
  if (["off", "false", "no"].includes(setting)) return 0;
  const seconds = setting === "" ? NaN : Number(setting);
  return (Number.isFinite(seconds) && seconds >= 0 ? seconds : IDLE_S) * 1000;
}

/** This build of the plugin: where its bundles are and the bundle a host runs, as the file system has it. */
export function buildTag(bundleDir: string): string {
  const main = statSync(join(bundleDir, "plugin-main.js"));
  return `${bundleDir}\0${main.size}\0${main.mtimeMs}\0${main.ino}\0${process.version}`;
}

/** What a host must share with a start: the environment but for PER_START, and the working folder. */
export interface Setting {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** The first name of PER_START-free setting that differs between `a` and `b`, "working folder", or undefined when they are the same. */
export function settingDifference(a: Setting, b: Setting): string | undefined {
  if (a.cwd !== b.cwd) return "working folder";
  for (const name of new Set([...Object.keys(a.env), ...Object.keys(b.env)]))
    if (!PER_START.has(name) && a.env[name] !== b.env[name]) return `environment (${name})`;
  return undefined;
}

/** The host's socket for this build and setting, in `cacheDir`; undefined when the path would be too long. */
export function hostSocketPath(cacheDir: string, build: string, setting: Setting): string | undefined {
  // Loaded here: a start with sharing off does not load node:crypto before its line (serve.ts).
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  const hash = createHash("sha256").update(build).update("\0").update(setting.cwd);
  for (const name of Object.keys(setting.env).sort()) if (!PER_START.has(name)) hash.update(`\0${name}=${setting.env[name] ?? ""}`);
  const path = join(cacheDir, `shared-${hash.digest("hex").slice(0, 32)}.sock`);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : undefined;
}

/**
 * What a joining start and its host say to each other on the host's socket: one JSON object per
 * line. The start says hello once; the host answers with the handshake line or a refusal, then
 * sends the session's log lines and, once the engine has shut the session down, the exit code.
 * A start that gets SIGTERM or SIGHUP says so, and the host ends the session once its calls in
 * progress are answered. Either side closing the socket ends the session.
 */
export interface Hello extends Setting {
  /** The start's pid, for the marks of a traced run (trace.ts). */
  readonly pid: number;
}

export type JoinMessage = { readonly hello: Hello } | { readonly terminate: true };

export type HostMessage = { readonly line: string } | { readonly refused: string } | { readonly log: string } | { readonly exit: number };

/** Splits a socket's data into lines and hands each parsed message on; a line that does not parse ends the reading. */
export function messageReader<T>(onMessage: (message: T) => void, onBad: (line: string) => void): (chunk: Buffer) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString("utf8");
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        onBad(line);
        return;
      }
      onMessage(message);
    }
  };
}

export const encodeMessage = (message: JoinMessage | HostMessage): string => JSON.stringify(message) + "\n";
