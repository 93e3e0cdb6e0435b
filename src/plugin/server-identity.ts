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
import { X509Certificate, createPrivateKey } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ServerIdentity, createSelfSignedCertificate } from "./tls";

const FILE = "server-identity.pem";
/** Validity of a kept certificate. */
export const CERT_LIFETIME_S = 30 * 24 * 3600;
/** A kept certificate is replaced once less than this is left of it, so no start uses one about to expire. */
const RENEW_BEFORE_END_MS = 7 * 24 * 3600 * 1000;

export interface KeptIdentity {
  readonly identity: ServerIdentity;
  /** "read" from the folder, or "made" now (then `save` writes it). */
  readonly source: "read" | "made";
  /** Writes a made identity to the folder (after the handshake line: nothing waits for it); a no-op otherwise. */
  save(): void;
}

/** The identity kept in `cacheDir`, or a fresh one (saved by `save()`) when there is none we can use. */
export function keptServerIdentity(cacheDir: string, now: Date = new Date()): KeptIdentity {
  const file = join(cacheDir, FILE);
  const read = readIdentity(file, now);
  if (read) return { identity: read, source: "read", save: () => {} };
  const made = createSelfSignedCertificate({ now, validForSeconds: CERT_LIFETIME_S });
  const identity: ServerIdentity = { certDer: made.certDer, certPem: made.certPem, keyPem: made.keyPem };
  return { identity, source: "made", save: () => writeIdentity(file, identity) };
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
  const keyPem = pemBlock(text, "PRIVATE KEY");
  const certPem = pemBlock(text, "CERTIFICATE");
  if (!keyPem || !certPem) return undefined;
  try {
    const cert = new X509Certificate(certPem);
    const t = now.getTime();
    if (Date.parse(cert.validFrom) > t || Date.parse(cert.validTo) - RENEW_BEFORE_END_MS < t) return undefined;
    // A key that does not match would only fail later, in the TLS context, with the engine waiting.
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return undefined;
    return { certDer: cert.raw, certPem, keyPem };
  } catch {
    return undefined;
  }
}

function pemBlock(text: string, label: string): string | undefined {
  const begin = `-----BEGIN ${label}-----`;
  const end = `-----END ${label}-----`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  return from >= 0 && to > from ? text.slice(from, to + end.length) + "\n" : undefined;
}

function writeIdentity(file: string, identity: ServerIdentity): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    // Written whole under a private name and renamed: another start reads the old file or the new one.
    writeFileSync(temporary, identity.keyPem + identity.certPem, { mode: 0o600, flag: "wx" });
    renameSync(temporary, file);
  } catch {
    // A cache: the next start makes its own.
  }
}
