/**
 * Real private keys for tests, in every armour a user may paste one in by mistake: OpenSSH
 * (`ssh-keygen`'s default), PEM (PKCS#1 RSA, SEC1 EC) and PKCS#8 (plain and encrypted), of fresh
 * key pairs. `marker` picks a distinctive run of the body, for checking that it is printed nowhere.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";

export type PrivateKeyFormat = "openssh-ed25519" | "pem-rsa" | "pem-ec" | "pkcs8-ed25519" | "pkcs8-encrypted-rsa";
export const PRIVATE_KEY_FORMATS: readonly PrivateKeyFormat[] = ["openssh-ed25519", "pem-rsa", "pem-ec", "pkcs8-ed25519", "pkcs8-encrypted-rsa"];

const sshString = (b: Buffer): Buffer => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
};
const uint32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** An unencrypted `openssh-key-v1` ed25519 key, as `ssh-keygen -t ed25519 -N ""` writes it. */
function opensshEd25519(comment: string): string {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const seed = Buffer.from(jwk.d!, "base64url");
  const pub = Buffer.from(jwk.x!, "base64url");
  const name = Buffer.from("ssh-ed25519");
  const pubBlob = Buffer.concat([sshString(name), sshString(pub)]);
  const check = randomBytes(4).readUInt32BE();
  let secret = Buffer.concat([
    uint32(check),
    uint32(check),
    sshString(name),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(Buffer.from(comment)),
  ]);
  const pad = (8 - (secret.length % 8)) % 8;
  secret = Buffer.concat([secret, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0"),
    sshString(Buffer.from("none")),
    sshString(Buffer.from("none")),
    sshString(Buffer.alloc(0)),
    uint32(1),
    sshString(pubBlob),
    sshString(secret),
  ]).toString("base64");
  const lines = body.match(/.{1,70}/g)!;
  return ["-----BEGIN OPENSSH PRIVATE KEY-----", ...lines, "-----END OPENSSH PRIVATE KEY-----", ""].join("\n");
}

export function privateKey(format: PrivateKeyFormat): string {
  switch (format) {
    case "openssh-ed25519":
      return opensshEd25519("builder@ci");
    case "pem-rsa":
      return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs1" }).toString();
    case "pem-ec":
      return generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "sec1" }).toString();
    case "pkcs8-ed25519":
      return generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    case "pkcs8-encrypted-rsa":
      return generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "correct horse" })
        .toString();
  }
}

/** Every line of the key's body (no armour lines): what a file or message must hold none of. */
export const bodyLines = (key: string): string[] => key.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("-----"));

/** Distinctive runs of the key's body (past any fixed ASN.1 prefix): from its second line (or only one) and its last full line. */
export function markers(key: string): string[] {
  const body = key.split("\n").filter((l) => l !== "" && !l.startsWith("-----") && !l.includes(":"));
  const lines = [body[Math.min(1, body.length - 1)]!, body[Math.max(0, body.length - 2)]!];
  return [...new Set(lines.map((l) => l.slice(16, 48)))];
}
