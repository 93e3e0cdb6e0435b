/**
 * What makes an adopted object that object for its type, recorded with each import drift writes and
 * compared at synth with the live object holding the id (src/report/adoption-check.ts computes the
 * same from the API's answer): ids are small sequential numbers, so an id alone names whatever object
 * got it. Pure.
 */
import { createHash } from "node:crypto";

/** OpenSSH's SHA256 fingerprint of a public key line ("SHA256:" and unpadded base64). */
export function sshFingerprint(publicKey: string): string {
  const blob = publicKey.trim().split(/\s+/)[1] ?? "";
  return "SHA256:" + createHash("sha256").update(Buffer.from(blob, "base64")).digest("base64").replace(/=+$/, "");
}

const text = (v: unknown) => (typeof v === "string" ? v : String(v));

/**
 * The identity of an object of `type` from its values as import puts them in state (the provider's
 * attribute names), or undefined for a type without one (a singleton, which always exists).
 * A token's creation time is kept in the API's form (no zone: UTC).
 */
export function adoptionIdentity(type: string, values: Readonly<Record<string, unknown>>): Record<string, string> | undefined {
  switch (type) {
    case "mgmt_ssh_key":
      return { label: text(values.label), fingerprint: sshFingerprint(text(values.ssh_key)) };
    case "mgmt_token":
      return { label: text(values.label), scopes: text(values.scopes), created: text(values.created).replace(/Z$/, "") };
    case "mgmt_oauth_client":
      return { label: text(values.label), redirect_uri: text(values.redirect_uri) };
    case "mgmt_tag":
      return { label: text(values.label) };
    default:
      return undefined;
  }
}
