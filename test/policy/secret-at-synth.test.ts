/** @tier unit */
/**
 * A value refused as a secret (a private key where the public key goes, a token where a label goes)
 * stops the synth before the configuration is written: the policy Aspect adds it as a validation,
 * which cdktf runs before writing cdk.tf.json. Every file the refused synth could write (its outdir
 * and the temp directory it used) is searched for every line of the key's body.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Aspects, TerraformStack } from "cdktf";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { SshKey } from "../../generated/providers/mgmt/ssh-key";
import { Token } from "../../generated/providers/mgmt/token";
import { MgmtPolicy } from "../../src/policy/aspect";
import { sshKeyText } from "../../testkit/ssh-keys";
import { filesUnder, synthError } from "../support/files-under";
import { bodyLines, privateKey } from "../support/private-keys";

describe("a secret the provider would refuse, at synth", () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "mgmt-secret-synth-"));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  function synth(name: string, declare: (stack: TerraformStack) => void): { error: string; files: string[] } {
    const outdir = join(work, name);
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "account");
    Aspects.of(stack).add(new MgmtPolicy());
    new MgmtProvider(stack, "mgmt", {});
    declare(stack);
    const error = synthError(app);
    return { error, files: filesUnder(outdir) };
  }

  it("stops it before cdk.tf.json is written, naming the construct and never quoting the key", () => {
    const key = privateKey("openssh-ed25519");
    const body = bodyLines(key);
    const { error, files } = synth("refused", (stack) => new SshKey(stack, "laptop", { label: "laptop", sshKey: key }));
    expect(error).toContain("account/laptop");
    expect(error).toContain("[mgmt] ssh_key:");
    expect(error).toMatch(/OpenSSH private key/);
    for (const line of body) {
      expect(error).not.toContain(line);
      for (const text of files) expect(text).not.toContain(line);
    }
    expect(files.some((t) => t.includes('"mgmt_ssh_key"'))).toBe(false);
  });

  it("refuses a minted token where a label goes, and lets an ordinary stack through", () => {
    const minted = "a1b2c3d4".repeat(8);
    const refused = synth("label", (stack) => new Token(stack, "t", { label: minted, expiresIn: "720h" }));
    expect(refused.error).toContain("[mgmt] label: this looks like an API token");
    for (const text of refused.files) expect(text).not.toContain(minted);
    const fine = synth("fine", (stack) => new SshKey(stack, "laptop", { label: "laptop", sshKey: sshKeyText("ed25519", "me@laptop") }));
    expect(fine.error).toBe("");
    expect(fine.files.some((t) => t.includes('"mgmt_ssh_key"'))).toBe(true);
  });
});
