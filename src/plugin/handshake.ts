/**
 * go-plugin's start-up contract (hashicorp/go-plugin server.go, client.go): the engine sets a
 * magic cookie and the protocol versions it speaks, the plugin listens and prints one line on
 * stdout, `CORE|APP|NETWORK|ADDRESS|PROTOCOL|CERT`, and the engine reads only that line.
 */
import { mkdtempSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import type { Server } from "node:net";
import { join } from "node:path";

export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
/** Fixed forever by Terraform (internal/plugin/serve.go); OpenTofu uses the same value. */
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
export const CORE_PROTOCOL_VERSION = 1;
export const APP_PROTOCOL_VERSION = 6;

export type HandshakeCheck = { readonly ok: true; readonly clientCertPem?: string } | { readonly ok: false; readonly message: string };

/** Decides from the environment whether we were started by an engine that speaks protocol 6. */
export function checkEnvironment(env: NodeJS.ProcessEnv): HandshakeCheck {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    return {
      ok: false,
      message:
        "This binary is a plugin. These are not meant to be executed directly.\n" +
        "Please execute the program that consumes these plugins, which will load any plugins automatically " +
        "(terraform-provider-mgmt is started by Terraform or OpenTofu).",
    };
  }
  const offered = env.PLUGIN_PROTOCOL_VERSIONS?.trim();
  // Unset means an old or hand-rolled client; go-plugin servers then fall back to their
  // only version too, and the client checks the answer.
  if (offered) {
    const versions = offered.split(",").map((v) => Number(v.trim()));
    if (!versions.includes(APP_PROTOCOL_VERSION)) {
      return {
        ok: false,
        message: `This provider speaks plugin protocol ${APP_PROTOCOL_VERSION}, but the engine offered only ${offered} (PLUGIN_PROTOCOL_VERSIONS). Use Terraform ≥ 1.0 or OpenTofu.`,
      };
    }
  }
  const clientCertPem = env.PLUGIN_CLIENT_CERT?.trim();
  return clientCertPem ? { ok: true, clientCertPem } : { ok: true };
}

/**
 * The DER bytes of a PEM certificate (PLUGIN_CLIENT_CERT), without node:crypto, which costs 4 to
 * 9 ms to load and is not loaded before the handshake line: the armour's base64, which must decode to one whole DER
 * SEQUENCE. Throws with what is wrong; what the SEQUENCE holds is the peer's to prove, by
 * presenting exactly these bytes.
 */
export function pemCertificateDer(pem: string): Buffer {
  const armour = /^-----BEGIN CERTIFICATE-----\s+([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----\s*$/.exec(pem.trim());
  if (!armour) throw new Error("not a PEM certificate block");
  const der = Buffer.from(armour[1]!.replace(/\s+/g, ""), "base64");
  if (der.length < 2 || der[0] !== 0x30 || derLength(der) !== der.length) throw new Error("its content is not a DER certificate");
  return der;
}

/** The total length (header included) the outer DER element says it has, or -1 when its header is malformed. */
function derLength(der: Buffer): number {
  const first = der[1]!;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || der.length < 2 + octets) return -1;
  let n = 0;
  for (let i = 0; i < octets; i++) n = n * 256 + der[2 + i]!;
  return 2 + octets + n;
}

export interface Endpoint {
  readonly network: "unix" | "tcp";
  readonly address: string;
}

/**
 * go-plugin decodes the certificate with base64.RawStdEncoding: standard alphabet, and
 * padding makes it fail ("error parsing server cert"). Without AutoMTLS (TF_DISABLE_PLUGIN_TLS,
 * reattach) the field is left out and the engine dials plaintext.
 */
export function handshakeLine(endpoint: Endpoint, certDer?: Uint8Array): string {
  const fields: (string | number)[] = [CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, endpoint.network, endpoint.address, "grpc"];
  if (certDer) fields.push(Buffer.from(certDer).toString("base64").replace(/=+$/, ""));
  return fields.join("|") + "\n";
}

export interface Listening extends Endpoint {
  /** Removes what listening left on disk; safe to call from an 'exit' handler (sync). */
  readonly cleanup: () => void;
}

/**
 * Go plugins on Unix listen on a socket in a fresh temporary location (honouring
 * PLUGIN_UNIX_SOCKET_DIR), so no port is taken and only this user can connect. Windows has
 * no unix sockets in go-plugin; there we bind 127.0.0.1 within PLUGIN_MIN_PORT..MAX_PORT.
 */
export async function listen(server: Server, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<Listening> {
  if (platform === "win32") return listenTcp(server, env);
  const dir = mkdtempSync(join(env.PLUGIN_UNIX_SOCKET_DIR || temporaryFolder(env), "tfplugin-"));
  const address = join(dir, "plugin.sock");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    listenOnPath(server, address, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // The folder holds the socket only. Not rmSync's recursive removal: its code (node's rimraf) is
  // loaded on first use, and every start removes the folder on its way out, while the engine waits.
  const cleanup = () => {
    for (const remove of [() => unlinkSync(address), () => rmdirSync(dir)])
      try {
        remove();
      } catch {
        // Already gone.
      }
  };
  return { network: "unix", address, cleanup };
}

/** os.tmpdir() on POSIX, without loading node:os before the line. */
function temporaryFolder(env: NodeJS.ProcessEnv): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || "/tmp";
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}

/** net.Server's own set-up of a listening handle, what listen() calls in a process that is not a cluster worker. */
type SettingUp = Server & { _listen2?: (address: string, port: number, addressType: number, backlog?: number) => void; _pipeName?: string };

/**
 * server.listen(path), without loading node:cluster: listen() asks cluster whether this process
 * is a worker, and loading it loads child_process, dgram and cluster's own modules, 4 to 6 ms of
 * CPU on every start (bench/plugin-startup.ts). node makes a process a worker only when
 * NODE_UNIQUE_ID is in its environment at start; otherwise listen() hands the path to the
 * server's _listen2, and so does this. Where that method is missing, node's listen().
 */
export function listenOnPath(server: Server, path: string, onListening: () => void): void {
  const settingUp = server as SettingUp;
  if (typeof settingUp._listen2 !== "function" || "NODE_UNIQUE_ID" in process.env) {
    server.listen(path, onListening);
    return;
  }
  // What listen() sets for a path before it asks cluster (server.address() reads it).
  settingUp._pipeName = path;
  server.once("listening", onListening);
  settingUp._listen2(path, -1, -1);
}

async function listenTcp(server: Server, env: NodeJS.ProcessEnv): Promise<Listening> {
  const min = Number(env.PLUGIN_MIN_PORT) || 0;
  const max = Number(env.PLUGIN_MAX_PORT) || 0;
  const candidates = min > 0 && max >= min ? Array.from({ length: max - min + 1 }, (_, i) => min + i) : [0];
  for (const port of candidates) {
    const bound = await new Promise<boolean>((resolve, reject) => {
      const onError = (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" || e.code === "EACCES" ? resolve(false) : reject(e));
      server.once("error", onError);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", onError);
        resolve(true);
      });
    });
    if (bound) {
      const addr = server.address();
      const actual = typeof addr === "object" && addr ? addr.port : port;
      return { network: "tcp", address: `127.0.0.1:${actual}`, cleanup: () => {} };
    }
  }
  throw new Error(`no free port in ${min}..${max} (PLUGIN_MIN_PORT..PLUGIN_MAX_PORT)`);
}

/** The handshake line, written to file descriptor 1 directly (serve.ts takeStdout says why). */
export function writeLine(line: string): void {
  const bytes = Buffer.from(line);
  for (let written = 0; written < bytes.length;) written += writeSync(1, bytes, written);
}
