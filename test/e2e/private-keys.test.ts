/** @tier engine */
/**
 * Real engines: a private key given where a public key goes (as HCL, a heredoc or through
 * file(), and as cdktf's JSON), or a token pasted as a label, is refused at validate by name,
 * and no part of it reaches the engine's output (human or -json), the engine's and provider's
 * trace log, or the state. The engines print the configuration line of a diagnostic that
 * carries an attribute path, so these carry none: the engine points at the block header.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { cryptoSecrets } from "../../src/server/clock";
import { markers, privateKey } from "../support/private-keys";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack } from "./stack";

jest.setTimeout(240_000);

describe.each(availableEngines())("$name keeps a secret typed by mistake out of every output", (engine: Engine) => {
  let stack: EngineStack;
  beforeAll(async () => {
    stack = await EngineStack.start(engine);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("refuses private keys and a pasted token at validate, naming them, and shows none of them anywhere", async () => {
    // Something in state first, so that the state is there to search.
    const good = { mgmt_ssh_key: { good: { label: "good", ssh_key: sshKeyText("ed25519") } } };
    stack.write({ resource: good });
    await stack.ok("apply", "-auto-approve");

    const keys = {
      openssh: privateKey("openssh-ed25519"),
      rsa: privateKey("pem-rsa"),
      ec: privateKey("pem-ec"),
      pkcs8: privateKey("pkcs8-ed25519"),
      encrypted: privateKey("pkcs8-encrypted-rsa"),
    };
    const token = cryptoSecrets.token();
    // cdktf's JSON: every value a literal on one line.
    stack.write({
      resource: {
        mgmt_ssh_key: { ...good.mgmt_ssh_key, json_rsa: { label: "runner", ssh_key: keys.rsa } },
        mgmt_token: { pasted: { label: token, scopes: "*" } },
      },
    });
    // HCL: a heredoc, a file(), and a list of authorized keys.
    writeFileSync(join(stack.dir, "id_ec"), keys.ec);
    writeFileSync(
      join(stack.dir, "keys.tf"),
      [
        'resource "mgmt_ssh_key" "heredoc" {',
        '  label   = "laptop"',
        "  ssh_key = <<-EOT",
        ...keys.openssh
          .trimEnd()
          .split("\n")
          .map((l) => `    ${l}`),
        "  EOT",
        "}",
        'resource "mgmt_ssh_key" "from_file" {',
        '  label   = "ec"',
        '  ssh_key = file("${path.module}/id_ec")',
        "}",
        'resource "mgmt_profile_settings" "me" {',
        `  authorized_keys = [${JSON.stringify(sshKeyText("rsa"))}, ${JSON.stringify(keys.pkcs8)}]`,
        "}",
        'resource "mgmt_ssh_key" "label" {',
        `  label   = ${JSON.stringify(keys.encrypted)}`,
        `  ssh_key = ${JSON.stringify(sshKeyText("ed25519"))}`,
        "}",
        "",
      ].join("\n"),
    );

    const traceLog = join(stack.dir, "trace.log");
    const traced = { ...stack.env, TF_LOG: "trace", TF_LOG_PATH: traceLog };
    const saved = stack.env;
    stack.env = traced;
    const human = await stack.run("plan");
    const machine = await stack.run("plan", "-json");
    const validated = await stack.run("validate");
    stack.env = saved;

    for (const r of [human, machine, validated]) expect(r.code).toBe(1);
    const printed = human.stdout + human.stderr;
    for (const address of ["mgmt_ssh_key.json_rsa", "mgmt_ssh_key.heredoc", "mgmt_ssh_key.from_file", "mgmt_profile_settings.me"]) {
      // Pointed at the block by its address; the line shown is the block's header (or, in JSON, its closing brace).
      expect(printed).toContain(`with ${address},`);
      expect(printed).toContain(`${address.replace(/\..*/, "")}.${address.includes("profile") ? "authorized_keys (element 2)" : "ssh_key"}: this is a`);
    }
    expect(printed).toMatch(/\.pub file/);
    expect(printed).toMatch(/mgmt_token\.label: this looks like an API token/);
    expect(printed).toMatch(/mgmt_ssh_key\.label: this is an encrypted PKCS#8 private key/);
    const diagnostics = machine.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { type: string; diagnostic?: { severity: string; summary: string } })
      .filter((l) => l.type === "diagnostic" && l.diagnostic!.severity === "error");
    expect(diagnostics.map((d) => d.diagnostic!.summary).sort()).toEqual([
      "Invalid authorized_keys: a secret",
      "Invalid label: a secret",
      "Invalid label: a secret",
      "Invalid ssh_key: a secret",
      "Invalid ssh_key: a secret",
      "Invalid ssh_key: a secret",
    ]);

    // The engine's trace log, where the provider's own lines go too, covers the validation.
    const log = readFileSync(traceLog, "utf8");
    expect(log).toMatch(/terraform-provider-mgmt/);
    expect(log).toMatch(/ValidateResourceConfig/);
    const state = readFileSync(join(stack.dir, "terraform.tfstate"), "utf8");
    expect(state).toContain("mgmt_ssh_key");
    const everything = [...stack.transcript, log, state].join("\n");
    for (const [what, key] of Object.entries(keys)) {
      for (const m of markers(key)) expect([what, everything.includes(m)]).toEqual([what, false]);
    }
    expect(everything).not.toContain(token);
  });
  it("refuses at plan what validate could not see: a private key through a variable, before any diff shows it", async () => {
    rmSync(join(stack.dir, "keys.tf"), { force: true });
    const key = privateKey("pem-rsa");
    // Input variables are unknown while the engines validate; the value arrives at plan.
    stack.write({
      variable: { deploy_key: { type: "string" } },
      resource: { mgmt_ssh_key: { deploy: { label: "deploy", ssh_key: "${var.deploy_key}" } } },
    });
    writeFileSync(join(stack.dir, "terraform.tfvars.json"), JSON.stringify({ deploy_key: key }));
    // validate cannot see the value: the plan's own check is what stops it.
    expect((await stack.run("validate")).code).toBe(0);
    const r = await stack.run("plan");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("with mgmt_ssh_key.deploy,");
    expect(r.stderr).toMatch(/mgmt_ssh_key\.ssh_key: this is a PEM RSA private key/);
    expect(r.stdout).not.toMatch(/will be created/);
    for (const m of markers(key)) expect(r.stdout + r.stderr).not.toContain(m);
    rmSync(join(stack.dir, "terraform.tfvars.json"));
  });
});

// Provider functions: Terraform (1.8 and later); OpenTofu 1.6 has none.
for (const engine of availableEngines().filter((e) => e.name === "terraform")) {
  describe(`${engine.name}: the ssh_key functions given a private key`, () => {
    let stack: EngineStack;
    beforeAll(async () => {
      stack = await EngineStack.start(engine);
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it("fail saying it is a private key, and print no part of it", async () => {
      const key = privateKey("openssh-ed25519");
      writeFileSync(join(stack.dir, "id_ed25519"), key);
      stack.write({
        output: {
          fingerprint: { value: '${provider::mgmt::ssh_key_fingerprint(file("${path.module}/id_ed25519"))}' },
          normalized: { value: '${provider::mgmt::ssh_key_normalize(file("${path.module}/id_ed25519"))}' },
        },
      });
      const traceLog = join(stack.dir, "trace.log");
      const r = await stack.run("plan");
      const traced = await runEngine(engine, ["plan", "-no-color"], stack.dir, { ...stack.env, TF_LOG: "trace", TF_LOG_PATH: traceLog });
      expect(r.code).toBe(1);
      expect(traced.code).toBe(1);
      expect(r.stderr).toMatch(/this is an OpenSSH private key, which must\s+stay secret/);
      expect(r.stderr).toMatch(/\.pub file/);
      const everything = [r.stdout, r.stderr, traced.stdout, traced.stderr, readFileSync(traceLog, "utf8")].join("\n");
      for (const m of markers(key)) expect(everything).not.toContain(m);
    });
  });
}
