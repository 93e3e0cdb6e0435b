/**
 * The identity drift records with each import: a key's fingerprint as OpenSSH computes it (the check at
 * synth computes the same from the API's answer, in src/report/adoption-check.ts), and for each type the
 * fields that make an object that object.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADOPTION_CHECK } from "../../src/report/adoption-check";
import { adoptionIdentity, sshFingerprint } from "../../src/report/adoption-identity";
import { sshKeyText } from "../../testkit/ssh-keys";

describe("an adopted object's identity", () => {
  it("fingerprints a public key as ssh-keygen -l does", () => {
    const work = mkdtempSync(join(tmpdir(), "mgmt-fingerprint-"));
    try {
      for (const kind of ["ed25519", "rsa", "ecdsa"] as const) {
        const key = sshKeyText(kind, `${kind}@example`);
        writeFileSync(join(work, "key.pub"), `${key}\n`);
        const r = spawnSync("ssh-keygen", ["-l", "-E", "sha256", "-f", join(work, "key.pub")], { encoding: "utf8" });
        expect({ kind, status: r.status }).toEqual({ kind, status: 0 });
        expect(sshFingerprint(key)).toBe(r.stdout.split(" ")[1]);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("names each type by what makes it that object, in the form the API answers", () => {
    const key = sshKeyText("ed25519", "a@b");
    expect(adoptionIdentity("mgmt_ssh_key", { id: "4", label: "build runner", ssh_key: key })).toEqual({
      label: "build runner",
      fingerprint: sshFingerprint(key),
    });
    expect(adoptionIdentity("mgmt_token", { label: "ci", scopes: "account:read_only", created: "2026-01-02T03:04:05Z" })).toEqual({
      label: "ci",
      scopes: "account:read_only",
      created: "2026-01-02T03:04:05",
    });
    expect(adoptionIdentity("mgmt_oauth_client", { label: "dash", redirect_uri: "https://x.example/cb" })).toEqual({
      label: "dash",
      redirect_uri: "https://x.example/cb",
    });
    expect(adoptionIdentity("mgmt_tag", { label: "prod" })).toEqual({ label: "prod" });
    expect(adoptionIdentity("mgmt_profile_settings", { timezone: "UTC" })).toBeUndefined();
    // The check at synth computes the same fields, with the same fingerprint.
    expect(ADOPTION_CHECK).toContain('"SHA256:" +');
    expect(ADOPTION_CHECK).toContain('created: text(live.created).replace(/Z$/, ""),');
  });
});
