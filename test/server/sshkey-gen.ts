/**
 * What the server tests need beyond testkit/ssh-keys.ts: the SSH wire string (to build
 * invalid key data) and ECDSA keys on the P-384 and P-521 curves.
 */
import { generateKeyPairSync } from "node:crypto";
import { sshKeyBlob, sshKeyText } from "../../testkit/ssh-keys";

export const sshString = (data: Buffer | string): Buffer => {
  const buf = typeof data === "string" ? Buffer.from(data, "latin1") : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
};

export const sshText = (algorithm: string, blob: Buffer, comment = "test@example"): string =>
  `${algorithm} ${blob.toString("base64")}${comment ? ` ${comment}` : ""}`;

const CURVES = { "P-256": "nistp256", "P-384": "nistp384", "P-521": "nistp521" } as const;

export function ecdsaBlob(curve: keyof typeof CURVES): Buffer {
  const jwk = generateKeyPairSync("ec", { namedCurve: curve }).publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
  return Buffer.concat([sshString(`ecdsa-sha2-${CURVES[curve]}`), sshString(CURVES[curve]), sshString(point)]);
}

export const ecdsaKey = (curve: keyof typeof CURVES) => sshText(`ecdsa-sha2-${CURVES[curve]}`, ecdsaBlob(curve));
export const ed25519Key = (comment = "test@example") => sshKeyText("ed25519", comment);
export const rsaKey = () => sshKeyText("rsa", "test@example");
export const ed25519Blob = () => sshKeyBlob("ed25519").blob;
