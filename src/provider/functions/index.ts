/**
 * Provider functions (protocol 6.5), called as `provider::mgmt::<name>(...)`. Pure and offline:
 * each applies a rule the API also applies, from the same contract code, so a configuration
 * can compute what the server will store or show. An error carries the argument's index and the
 * engine names the parameter ("Invalid value for "key" parameter: ..."), so the text does not.
 */
import { createHash } from "node:crypto";
import { parseSshPublicKey, type SshPublicKey } from "../../contract/sshkey-format";
import { Scopes } from "../../contract/scopes";
import { defineFunction, FunctionFailure, type FunctionDefinition } from "../framework/resource";
import type { TfValue } from "../framework/value";

function sshKeyArgument(args: readonly TfValue[]): SshPublicKey {
  const parsed = parseSshPublicKey(String(args[0]));
  // A private key's reason names its kind only; the engine shows the call's source, not the argument's value.
  if (!parsed.ok) throw new FunctionFailure(parsed.reason, 0);
  return parsed.key;
}

const keyParameter = { name: "key", type: "string", description: "An OpenSSH public key: `<algorithm> <base64> [comment]`." } as const;

export const sshKeyFingerprint = defineFunction({
  name: "ssh_key_fingerprint",
  summary: "The OpenSSH SHA256 fingerprint of a public key",
  description:
    "Returns the fingerprint `ssh-keygen -l` prints for the key: `SHA256:` followed by the unpadded base64 of the SHA-256 of the key data. The comment does not count.",
  parameters: [keyParameter],
  returns: "string",
  call(args) {
    const digest = createHash("sha256")
      .update(Buffer.from(sshKeyArgument(args).blob, "base64"))
      .digest("base64");
    return `SHA256:${digest.replace(/=+$/, "")}`;
  },
});

export const sshKeyNormalize = defineFunction({
  name: "ssh_key_normalize",
  summary: "A public key as algorithm and base64 only",
  description:
    "Returns `<algorithm> <base64>`: the comment and extra whitespace dropped and the base64 re-encoded canonically, so two texts of the same key compare equal.",
  parameters: [keyParameter],
  returns: "string",
  call(args) {
    const key = sshKeyArgument(args);
    return `${key.algorithm} ${key.blob}`;
  },
});

export const scopesNormalize = defineFunction({
  name: "scopes_normalize",
  summary: "OAuth scopes in the form the API stores them",
  description:
    "Returns the scopes as the API stores and shows them: `*` alone, or each area once with its strongest access (`read_write` implies `read_only`), space-separated, in the order first given.",
  parameters: [{ name: "scopes", type: "string", description: "`*`, or space-separated `<area>:read_only` / `<area>:read_write`." }],
  returns: "string",
  call(args) {
    const parsed = Scopes.parse(String(args[0]));
    if (!parsed.ok) throw new FunctionFailure(parsed.reason, 0);
    return parsed.scopes.toString();
  },
});

export const functions: readonly FunctionDefinition[] = [sshKeyFingerprint, sshKeyNormalize, scopesNormalize];
