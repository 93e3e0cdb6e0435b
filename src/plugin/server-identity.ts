/**
 * The plugin's TLS server identity, kept between starts. Making it (a P-256 key generated, a
 * certificate signed, both exported) took about 8 ms before the handshake line, and the engines
 * start the plugin three to five times per command.
 *
 * Reuse is safe because of what AutoMTLS checks: the engine trusts exactly the certificate the
 * handshake line carries, for that one start, and proves itself with a client certificate of its
 * own that is fresh per start and pinned by us (tls.ts). A kept certificate changes nothing in
 * that exchange; what matters is that only we can use its key. So the key lives where the code
 * cache lives (compile-cache.ts: a 0700 folder of the user's, refused when others could write to
 * it), in a 0600 file read only if it is ours, a regular file, and private. Whoever can read it
 * runs as our user, and could read the key of a fresh certificate from our memory just as well.
 * The file is remade when absent, unreadable, not private, unparseable or near its end of
 * validity, and a certificate lives a short while (CERT_LIFETIME_S) so a key does not outlive a
 * rotation long.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerIdentity } from "./tls";

const FILE = "server-identity.pem";
/** Validity of a kept certificate. */
export const CERT_LIFETIME_S = 30 * 24 * 3600;
/** A kept certificate is replaced once less than this is left of it, so no start uses one about to expire. */
const RENEW_BEFORE_END_MS = 7 * 24 * 3600 * 1000;

export interface KeptIdentity {
  readonly identity: ServerIdentity;
  /** "read" from the folder, or "made" now. */
  readonly source: "read" | "made";
  /** After the handshake line (nothing waits for it): writes a made identity to the folder. */
  settle(): void;
  /**
   * Removes a read identity that node:tls refused (its key is not its certificate's, or does not
   * decode), so the next start makes a new one. That check is the TLS context's own, which the
   * start makes anyway: checking the key here as well cost a millisecond or two of node:crypto on
   * the way to the first answer.
   */
  discard(): void;
}

/**
 * The identity kept in `cacheDir`, or a fresh one when there is none we can use. Reading it needs
 * no node:crypto, which costs several milliseconds to load and which node:tls loads after the
 * line anyway: the validity is in the file beside the PEM blocks (we wrote it; the file is ours
 * alone), and the DER is the certificate block's base64.
 */
export function keptServerIdentity(cacheDir: string, now: Date = new Date()): KeptIdentity {
  const file = join(cacheDir, FILE);
  const read = readIdentity(file, now);
  if (read) return { identity: read, source: "read", settle: () => {}, discard: () => remove(file) };
  const { createSelfSignedCertificate } = require("./tls") as typeof import("./tls");
  const made = createSelfSignedCertificate({ now, validForSeconds: CERT_LIFETIME_S });
  const identity: ServerIdentity = { certDer: made.certDer, certPem: made.certPem, keyPem: made.keyPem };
  const validity = validityLine(now);
  return {
    identity,
    source: "made",
    settle: () => writeIdentity(file, validity + identity.keyPem + identity.certPem),
    discard: () => {},
  };
}

/** The notBefore and notAfter createSelfSignedCertificate gives a certificate made at `now`, in epoch ms. */
function validityLine(now: Date): string {
  const notBefore = Math.floor(now.getTime() / 1000) * 1000 - 30_000;
  return `valid ${notBefore} ${notBefore + CERT_LIFETIME_S * 1000}\n`;
}

function readIdentity(file: string, now: Date): ServerIdentity | undefined {
  let text: string;
  try {
    // O_NOFOLLOW: a symlink planted in the folder is not followed; the checks are on what was opened.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      const uid = process.getuid?.();
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const validity = /^valid (\d+) (\d+)\n/.exec(text);
  const keyPem = pemBlock(text, "PRIVATE KEY");
  const certPem = pemBlock(text, "CERTIFICATE");
  if (!validity || !keyPem || !certPem) return undefined;
  const t = now.getTime();
  if (Number(validity[1]) > t || Number(validity[2]) - RENEW_BEFORE_END_MS < t) return undefined;
  const body = certPem.slice("-----BEGIN CERTIFICATE-----".length, certPem.indexOf("-----END"));
  const certDer = Buffer.from(body.replace(/\s+/g, ""), "base64");
  // A DER SEQUENCE at least; the engine parses it, and a torn file is remade rather than announced.
  if (certDer.length < 64 || certDer[0] !== 0x30) return undefined;
  return { certDer, certPem, keyPem };
}

function remove(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already.
  }
}

function pemBlock(text: string, label: string): string | undefined {
  const begin = `-----BEGIN ${label}-----`;
  const end = `-----END ${label}-----`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  return from >= 0 && to > from ? text.slice(from, to + end.length) + "\n" : undefined;
}

function writeIdentity(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    // Written whole under a private name and renamed: another start reads the old file or the new one.
    writeFileSync(temporary, text, { mode: 0o600, flag: "wx" });
    renameSync(temporary, file);
  } catch {
    // A cache: the next start makes its own.
  }
}
