/** @tier unit */
/**
 * A refused secret stops the synth before anything is written also in an app that uses the packaged
 * bindings without the MgmtPolicy Aspect: the resource constructors add the validation themselves. Every
 * file the refused synth could write (its outdir, and anything new in the temp directory) is searched for
 * every line of the key's body. With the Aspect too, the refusal is said once.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Aspects, TerraformStack } from "cdktf";
import { repoPath } from "../../src/harness/paths";
import { MgmtPolicy } from "../../src/policy/aspect";
import { sshKeyText } from "../../testkit/ssh-keys";
import { filesUnder, synthError } from "../support/files-under";
import { bodyLines, privateKey } from "../support/private-keys";

// The package as an app installs it (npm run build writes it); its cdktf resolves to this repository's.
const bindings = require(repoPath("dist/cdktf-bindings/lib/index.js")) as typeof import("../../generated/providers/mgmt");

describe("a secret in the packaged bindings, without the Aspect", () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "mgmt-secret-bindings-"));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  function synth(name: string, declare: (stack: TerraformStack) => void, withAspect = false): { error: string; files: string[] } {
    const before = new Set(readdirSync(tmpdir()));
    const outdir = join(work, name);
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "account");
    if (withAspect) Aspects.of(stack).add(new MgmtPolicy());
    new bindings.provider.MgmtProvider(stack, "mgmt", {});
    declare(stack);
    const error = synthError(app);
    const fresh = readdirSync(tmpdir())
      .filter((f) => !before.has(f))
      .map((f) => join(tmpdir(), f));
    const written = [outdir, ...fresh].flatMap((p) => {
      try {
        return statSync(p).isDirectory() ? filesUnder(p) : [readFileSync(p, "utf8")];
      } catch {
        return [];
      }
    });
    return { error, files: written };
  }

  it("stops a private key in ssh_key before cdk.tf.json is written, never quoting it", () => {
    const key = privateKey("openssh-ed25519");
    const body = bodyLines(key);
    const { error, files } = synth("key", (stack) => new bindings.sshKey.SshKey(stack, "laptop", { label: "laptop", sshKey: key }));
    expect(error).toContain("account/laptop");
    expect(error).toContain("[mgmt] ssh_key:");
    for (const line of body) {
      expect(error).not.toContain(line);
      for (const text of files) expect(text).not.toContain(line);
    }
    expect(files.some((t) => t.includes('"mgmt_ssh_key"'))).toBe(false);
  });

  it("stops a key set after construction, and a token or client secret where a label goes", () => {
    const key = privateKey("openssh-ed25519");
    const late = synth("late", (stack) => {
      const k = new bindings.sshKey.SshKey(stack, "laptop", { label: "laptop", sshKey: sshKeyText("ed25519", "me@laptop") });
      k.sshKey = key;
    });
    expect(late.error).toContain("[mgmt] ssh_key:");
    for (const text of late.files) expect(text).not.toContain(key.split("\n")[1]!);

    const minted = "a1b2c3d4".repeat(8);
    const token = synth("token", (stack) => new bindings.token.Token(stack, "t", { label: minted, expiresIn: "720h" }));
    expect(token.error).toContain("[mgmt] label: this looks like an API token");
    const client = synth("client", (stack) => new bindings.oauthClient.OauthClient(stack, "c", { label: minted, redirectUri: "https://example.com/cb" }));
    expect(client.error).toContain("[mgmt] label: this looks like an API token");
    for (const text of [...token.files, ...client.files]) expect(text).not.toContain(minted);
  });

  it("CDK Terrain's bindings package refuses it the same way, before writing", () => {
    const key = privateKey("openssh-ed25519");
    const outdir = join(work, "cdktn.out");
    // cdktn lives in the example's workspace, as it does in a cdktn project beside the package.
    const program = `
      const { createRequire } = require("node:module");
      const lib = createRequire(${JSON.stringify(repoPath("dist/cdktn-bindings/lib/index.js"))});
      const { App, TerraformStack } = lib("cdktn");
      const app = new App({ outdir: ${JSON.stringify(outdir)} });
      const stack = new TerraformStack(app, "team");
      new (lib("./provider").MgmtProvider)(stack, "mgmt", {});
      new (lib("./ssh-key").SshKey)(stack, "laptop", { label: "laptop", sshKey: process.env.KEY });
      app.synth();`;
    const r = spawnSync(process.execPath, ["-e", program], {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, KEY: key, NODE_PATH: repoPath("examples/cdktn/node_modules") },
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("[mgmt] ssh_key:");
    const body = bodyLines(key);
    let files: string[] = [];
    try {
      files = filesUnder(outdir);
    } catch {
      // Nothing written at all.
    }
    for (const line of body) {
      expect(r.stderr).not.toContain(line);
      for (const text of files) expect(text).not.toContain(line);
    }
  });

  it("says it once with the Aspect too, and lets an ordinary stack through", () => {
    const key = privateKey("openssh-ed25519");
    const both = synth("both", (stack) => new bindings.sshKey.SshKey(stack, "laptop", { label: "laptop", sshKey: key }), true);
    expect(both.error.split("[mgmt] ssh_key:")).toHaveLength(2);
    const fine = synth("fine", (stack) => new bindings.sshKey.SshKey(stack, "laptop", { label: "laptop", sshKey: sshKeyText("ed25519", "me@laptop") }));
    expect(fine.error).toBe("");
    expect(fine.files.some((t) => t.includes('"mgmt_ssh_key"'))).toBe(true);
  });
});
