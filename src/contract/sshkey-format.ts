/**
 * OpenSSH public keys (`<algorithm> <base64 blob> [comment]`), parsed and checked: the blob
 * must decode, its leading name must equal the algorithm, and it must carry the fields that
 * algorithm's key needs. Server and provider share this, so the provider can refuse at plan
 * what the server would refuse at apply, and compare keys ignoring comment and whitespace.
 */

export interface SshPublicKey {
  readonly algorithm: string;
  /** base64 of the key blob, canonical (re-encoded from the decoded bytes). */
  readonly blob: string;
  readonly comment: string;
}

/** Number of SSH wire strings after the name for each accepted algorithm. */
const FIELDS_AFTER_NAME: Record<string, number> = {
  "ssh-rsa": 2, // e, n
  "ssh-dss": 4, // p, q, g, y
  "ssh-ed25519": 1, // 32-byte key
  "ecdsa-sha2-nistp256": 2, // curve, point
  "ecdsa-sha2-nistp384": 2,
  "ecdsa-sha2-nistp521": 2,
  "sk-ecdsa-sha2-nistp256@openssh.com": 3, // curve, point, application
  "sk-ssh-ed25519@openssh.com": 2, // key, application
};

export const SSH_KEY_ALGORITHMS: readonly string[] = Object.keys(FIELDS_AFTER_NAME);

/** `privateKey`: the text is a private key, so a caller must not echo it (the reason does not). */
export type ParseResult = { ok: true; key: SshPublicKey } | { ok: false; reason: string; privateKey?: true };

/**
 * The armour every private key format puts around its body: OpenSSH (`OPENSSH PRIVATE KEY`), PEM
 * (`RSA`, `EC`, `DSA PRIVATE KEY`), PKCS#8 (`PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) and the
 * `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----` of ssh.com; PuTTY's `.ppk` has a header line of its own.
 */
const PRIVATE_KEY_ARMOUR = /-{4,5} ?BEGIN ([A-Z0-9]+(?: [A-Z0-9]+)*? )?PRIVATE KEY ?-{4,5}/;
/** A whole private key in that armour, to the end of the text when its END line is missing (for masking free text). */
export const PRIVATE_KEY_BLOCK = /-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY ?-{4,5}[\s\S]*?(?:-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY ?-{4,5}|$)/g;
const PUTTY_PRIVATE_KEY = /^PuTTY-User-Key-File-\d+:/m;

/** Which private key `text` holds ("an OpenSSH private key", ...), or undefined when it holds none. */
export function privateKeyKind(text: string): string | undefined {
  if (PUTTY_PRIVATE_KEY.test(text)) return "a PuTTY private key";
  const armour = PRIVATE_KEY_ARMOUR.exec(text);
  if (armour === null) return undefined;
  const label = (armour[1] ?? "").trim();
  if (label === "") return "a PKCS#8 private key";
  if (label === "ENCRYPTED") return "an encrypted PKCS#8 private key";
  if (label === "OPENSSH") return "an OpenSSH private key";
  return `a PEM ${label} private key`;
}

/**
 * Why a private key is refused, naming only its kind: the key's text must never be echoed, since a
 * reason lands in plan output, CI logs and API error bodies. No final period, as the other reasons here.
 */
export function privateKeyReason(kind: string): string {
  return (
    `this is ${kind}, which must stay secret: give the public key instead, the .pub file beside it ` +
    "(e.g. ~/.ssh/id_ed25519.pub), or what `ssh-keygen -y -f <private key file>` prints. " +
    "If the private key was shared or committed anywhere, replace the key pair"
  );
}

function readStrings(blob: Buffer): Buffer[] | null {
  const out: Buffer[] = [];
  let off = 0;
  while (off < blob.length) {
    if (off + 4 > blob.length) return null;
    const len = blob.readUInt32BE(off);
    off += 4;
    if (off + len > blob.length) return null;
    out.push(blob.subarray(off, off + len));
    off += len;
  }
  return out;
}

export function parseSshPublicKey(text: string): ParseResult {
  const kind = privateKeyKind(text);
  if (kind !== undefined) return { ok: false, reason: privateKeyReason(kind), privateKey: true };
  const parts = text.trim().split(/\s+/);
  if (parts.length < 2 || parts[0] === "") {
    return { ok: false, reason: "SSH key must be of the form '<algorithm> <base64 key> [comment]'" };
  }
  const [algorithm, b64, ...rest] = parts as [string, string, ...string[]];
  const expected = FIELDS_AFTER_NAME[algorithm];
  if (expected === undefined) {
    return { ok: false, reason: `SSH key algorithm '${algorithm}' is not supported; use one of ${SSH_KEY_ALGORITHMS.join(", ")}` };
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    return { ok: false, reason: "SSH key data is not valid base64" };
  }
  const blob = Buffer.from(b64, "base64");
  const strings = readStrings(blob);
  if (strings === null || strings.length === 0) {
    return { ok: false, reason: "SSH key data is not a valid public key" };
  }
  const name = strings[0]!.toString("latin1");
  if (name !== algorithm) {
    return { ok: false, reason: `SSH key type '${algorithm}' does not match the key data, which is '${name}'` };
  }
  if (strings.length - 1 !== expected) {
    return { ok: false, reason: `SSH key data is not a valid ${algorithm} public key` };
  }
  if ((algorithm === "ssh-ed25519" || algorithm === "sk-ssh-ed25519@openssh.com") && strings[1]!.length !== 32) {
    return { ok: false, reason: `SSH key data is not a valid ${algorithm} public key` };
  }
  if (algorithm.includes("ecdsa-sha2-nistp")) {
    const curve = algorithm
      .replace(/^sk-/, "")
      .replace(/@openssh\.com$/, "")
      .slice("ecdsa-sha2-".length);
    if (strings[1]!.toString("latin1") !== curve) {
      return { ok: false, reason: `SSH key data is not a valid ${algorithm} public key` };
    }
  }
  return { ok: true, key: { algorithm, blob: blob.toString("base64"), comment: rest.join(" ") } };
}

/** Two key texts name the same key when algorithm and blob agree (comments and spacing aside). */
export function sameSshKey(a: string, b: string): boolean {
  const pa = parseSshPublicKey(a);
  const pb = parseSshPublicKey(b);
  if (!pa.ok || !pb.ok) return a.trim() === b.trim();
  return pa.key.algorithm === pb.key.algorithm && pa.key.blob === pb.key.blob;
}

/**
 * The wire strings of a parsed key's blob after its name (for `ssh-rsa`: e, then the modulus n), for
 * checks on the key itself such as its size.
 */
export function sshKeyFields(key: SshPublicKey): Buffer[] {
  return (readStrings(Buffer.from(key.blob, "base64")) ?? []).slice(1);
}
