/** Real OpenSSH public keys for tests, made from freshly generated key pairs. */
import { generateKeyPairSync } from "node:crypto";

const sshString = (b: Buffer): Buffer => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
};

/** The key blob (SSH wire format) of a fresh key of the given kind. */
export function sshKeyBlob(kind: "ed25519" | "ecdsa" | "rsa", rsaBits = 2048): { algorithm: string; blob: Buffer } {
  switch (kind) {
    case "ed25519": {
      const raw = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).subarray(-32);
      return { algorithm: "ssh-ed25519", blob: Buffer.concat([sshString(Buffer.from("ssh-ed25519")), sshString(raw)]) };
    }
    case "ecdsa": {
      const point = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "der", type: "spki" }).subarray(-65);
      return {
        algorithm: "ecdsa-sha2-nistp256",
        blob: Buffer.concat([sshString(Buffer.from("ecdsa-sha2-nistp256")), sshString(Buffer.from("nistp256")), sshString(point)]),
      };
    }
    case "rsa": {
      const jwk = generateKeyPairSync("rsa", { modulusLength: rsaBits }).publicKey.export({ format: "jwk" });
      const mpint = (b64url: string) => {
        const b = Buffer.from(b64url, "base64url");
        return sshString(b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
      };
      return { algorithm: "ssh-rsa", blob: Buffer.concat([sshString(Buffer.from("ssh-rsa")), mpint(jwk.e!), mpint(jwk.n!)]) };
    }
  }
}

export function sshKeyText(kind: "ed25519" | "ecdsa" | "rsa", comment?: string, rsaBits = 2048): string {
  const { algorithm, blob } = sshKeyBlob(kind, rsaBits);
  return [algorithm, blob.toString("base64"), comment].filter(Boolean).join(" ");
}
