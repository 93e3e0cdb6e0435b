/** @tier engine */
/**
 * `mgmt policy check` on plans real engines make against a real `mgmt serve`: one stack holding, for every rule,
 * resources that break it and resources that pass it, planned once per engine; every assertion reads that plan.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import type { PolicyJson } from "../../src/policy/json";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { runMgmt } from "../report/run-mgmt";
import { sshKeyText } from "../../testkit/ssh-keys";

jest.setTimeout(300_000);

/** Put into a sensitive label only; no output may ever contain it. */
const SECRET = "hunter2-SECRET-policy";

const TOKEN = { scopes: "account:read_only", expires_in: "720h", renew_before: "168h" };
const token = (label: string, extra: Record<string, unknown> = {}) => ({ ...TOKEN, label, ...extra });
const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

const STACK = {
  mgmt_token: {
    good: token("team-ci deploy"),
    forever: { label: "team-ci forever", scopes: "account:read_only" },
    long: token("team-ci long", { expires_in: "4320h" }),
    absolute: { label: "team-ci absolute", scopes: "account:read_only", expiry: "2099-01-01T00:00:00Z" },
    star: token("team-ci star", { scopes: "*" }),
    writer: token("team-ci writer", { scopes: "account:read_write events:read_only" }),
    unscoped: without(token("team-ci unscoped"), "scopes"),
    no_renew: without(token("team-ci no renew"), "renew_before"),
    short_renew: token("team-ci short renew", { renew_before: "24h" }),
    badlabel: token("deploy"),
    hidden: token("${var.secret_label}"),
  },
  mgmt_oauth_client: {
    good: { label: "team-web dashboard", redirect_uri: "https://app.example.com/cb" },
    plain: { label: "team-web plain", redirect_uri: "http://app.example.com/cb" },
    native: { label: "team-cli native", redirect_uri: "http://127.0.0.1:8080/cb", public: true },
    loopback_private: { label: "team-web loopback", redirect_uri: "http://localhost/cb", public: false },
    later: { label: "team-web later", redirect_uri: "https://app.example.com/${mgmt_token.good.id}" },
  },
  mgmt_ssh_key: {
    ed: { label: "ed", ssh_key: sshKeyText("ed25519", "ed@test") },
    ec: { label: "ec", ssh_key: sshKeyText("ecdsa", "ec@test") },
    rsa_strong: { label: "rsa 3072", ssh_key: sshKeyText("rsa", "strong@test", 3072) },
    rsa_weak: { label: "rsa 2048", ssh_key: sshKeyText("rsa", "weak@test") },
  },
};

const POLICY = {
  rules: { "token-scopes": { read_only_areas: ["account"] }, "label-pattern": { pattern: "^team-[a-z]+ " } },
  waivers: [
    { rule: "token-expiry", address: "mgmt_token.long", reason: "vendor integration, INC-7", expires: "2999-12-31" },
    { rule: "token-expiry", address: "mgmt_token.absolute", reason: "was fixed by the end of 1999", expires: "2000-01-01" },
    { rule: "ssh-key-strength", address: "mgmt_ssh_key.gone", reason: "removed", expires: "2999-12-31" },
  ],
};

/** What the plan of STACK must give under POLICY, on either engine: [address, rule, severity, status]. */
const EXPECTED = [
  ["mgmt_oauth_client.later", "oauth-redirect-https", "error", "not_checkable"],
  ["mgmt_oauth_client.loopback_private", "oauth-redirect-https", "error", "violation"],
  ["mgmt_oauth_client.native", "oauth-public", "warning", "violation"],
  ["mgmt_oauth_client.plain", "oauth-redirect-https", "error", "violation"],
  ["mgmt_ssh_key.rsa_weak", "ssh-key-strength", "error", "violation"],
  ["mgmt_token.absolute", "token-expiry", "error", "waiver_expired"],
  ["mgmt_token.badlabel", "label-pattern", "error", "violation"],
  ["mgmt_token.forever", "token-expiry", "error", "violation"],
  ["mgmt_token.hidden", "label-pattern", "error", "violation"],
  ["mgmt_token.long", "token-expiry", "error", "waived"],
  ["mgmt_token.no_renew", "token-renewal", "warning", "violation"],
  ["mgmt_token.short_renew", "token-renewal", "warning", "violation"],
  ["mgmt_token.star", "token-scopes", "error", "violation"],
  ["mgmt_token.unscoped", "token-scopes", "error", "violation"],
  ["mgmt_token.writer", "token-scopes", "error", "violation"],
];

describe.each(availableEngines())("$name plans checked by mgmt policy check", (engine: Engine) => {
  let server: RunningServer;
  let root: string;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let planJson: string;

  const policy = (args: string[], input = planJson) => runMgmt(["policy", "check", ...args], { env, cwd: dir, input });
  const noSecret = (...texts: string[]) => {
    for (const t of texts) expect(t).not.toContain(SECRET);
  };

  beforeAll(async () => {
    server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
    root = mkdtempSync(join(tmpdir(), `mgmt-policy-${engine.name}-`));
    dir = join(root, "stack");
    mkdirSync(dir);
    env = engineEnvironment({ cliConfig: writeCliConfig(root, "mirror"), url: server.url, token: server.token });
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify(
        {
          terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
          provider: { mgmt: {} },
          variable: { secret_label: { type: "string", sensitive: true, default: SECRET } },
          resource: STACK,
        },
        null,
        2,
      ),
    );
    writeFileSync(join(dir, "policy.json"), JSON.stringify(POLICY, null, 2));
    for (const args of [["init"], ["plan", "-out=all.tfplan"]]) {
      const r = await runEngine(engine, [...args, "-no-color"], dir, env);
      if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    }
    const show = await runEngine(engine, ["show", "-json", "all.tfplan"], dir, env);
    expect(show.code).toBe(0);
    planJson = show.stdout;
    // The engine's JSON carries the secret in clear: the no-secret checks below can fail.
    expect(planJson).toContain(SECRET);
  });

  afterAll(async () => {
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("json: every rule broken where the stack breaks it, and nowhere else; exit 2", async () => {
    const r = await policy(["--plan", "-", "--config", "policy.json", "--format", "json"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "" });
    noSecret(r.stdout);
    const report = JSON.parse(r.stdout) as PolicyJson;
    expect(report.findings.map((f) => [f.address, f.rule, f.severity, f.status])).toEqual(EXPECTED);
    expect(report.summary).toEqual({ checked: 20, errors: 10, warnings: 3, waived: 1, waivers_expired: 1, not_checkable: 1, stale_waivers: 1 });
    expect(report.stale_waivers).toEqual([{ rule: "ssh-key-strength", address: "mgmt_ssh_key.gone", reason: "removed", expires: "2999-12-31" }]);
    const message = (address: string) => report.findings.find((f) => f.address === address)!.message;
    // Decided from the plan's configuration although the engine shows the values as unknown.
    expect(message("mgmt_token.forever")).toMatch(/never expires/);
    expect(message("mgmt_token.unscoped")).toMatch(/`scopes` is not set/);
    expect(message("mgmt_token.absolute")).toMatch(/further away than the maximum lifetime .*its waiver expired on 2000-01-01/);
    expect(message("mgmt_token.hidden")).toBe("`label` (sensitive) does not match the naming pattern /^team-[a-z]+ /");
    expect(message("mgmt_ssh_key.rsa_weak")).toBe("RSA key of 2048 bits; at least 3072 are required (or use ed25519)");
  });

  it("plan-report --policy: the check's JSON becomes the comment's Policy section and the JSON summary's counts", async () => {
    const check = await policy(["--plan", "-", "--config", "policy.json", "--format", "json"]);
    expect(check.code).toBe(2);
    writeFileSync(join(dir, "policy-check.json"), check.stdout);
    writeFileSync(join(dir, "plan.json"), planJson);
    const report = (args: string[]) => runMgmt(["plan-report", "--plan", "plan.json", "--policy", "policy-check.json", ...args], { env, cwd: dir });

    const md = await report([]);
    // The comment is posted either way: the check's exit code, not plan-report's, fails the job.
    expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 0, stderr: "" });
    noSecret(md.stdout);
    expect(md.stdout).toMatch(/^## Plan result\n\n\*\*/);
    const section = md.stdout.slice(md.stdout.indexOf("\n## Policy\n"));
    expect(section).toMatch(/^\n## Policy\n\n\*\*10 violations at error severity\*\* 20 resource\(s\) checked · 3 warning\(s\) · 1 waived/);
    expect(section).toContain("- `mgmt_token.forever` **token-expiry**: the token never expires");
    expect(section).toContain("- `mgmt_ssh_key.gone` **ssh-key-strength** (expires 2999-12-31): removed");

    // Under a tight budget the plan's details give way; the Policy section stays whole.
    const tight = await report(["--max-chars", String(section.length + 1500)]);
    expect(tight.code).toBe(0);
    expect(tight.stdout.length).toBeLessThanOrEqual(section.length + 1500);
    expect(tight.stdout.endsWith(section)).toBe(true);
    expect(tight.stdout).toContain("> [!NOTE]");

    const json = await report(["--format", "json"]);
    expect(json.code).toBe(0);
    noSecret(json.stdout);
    expect((JSON.parse(json.stdout) as { policy: unknown }).policy).toEqual({
      passed: false,
      checked: 20,
      errors: 10,
      warnings: 3,
      waived: 1,
      waivers_expired: 1,
      not_checkable: 1,
      stale_waivers: 1,
    });
  });

  it("md (the default) from mgmt-policy.json in the current folder; sarif with a rule per id and a result per finding", async () => {
    writeFileSync(join(dir, "mgmt-policy.json"), JSON.stringify(POLICY));
    try {
      const md = await policy([]);
      expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 2, stderr: "" });
      noSecret(md.stdout);
      expect(md.stdout).toMatch(/^## Policy\n\n\*\*10 violations at error severity\*\* 20 resource\(s\) checked · 3 warning\(s\) · 1 waived/);
      expect(md.stdout).toContain('- `mgmt_oauth_client.plain` **oauth-redirect-https**: `redirect_uri` "http://app.example.com/cb" is not https');

      const sarif = await policy(["--format", "sarif", "--source", "main.tf.json"]);
      expect(sarif.code).toBe(2);
      noSecret(sarif.stdout);
      const doc = JSON.parse(sarif.stdout) as {
        version: string;
        $schema: string;
        runs: {
          tool: { driver: { rules: { id: string }[] } };
          results: {
            ruleId: string;
            level: string;
            locations: {
              physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
              logicalLocations: { fullyQualifiedName: string }[];
            }[];
          }[];
        }[];
      };
      expect(doc.version).toBe("2.1.0");
      expect(doc.$schema).toMatch(/sarif-2\.1\.0/);
      expect(doc.runs[0]!.tool.driver.rules.map((r) => r.id)).toEqual([
        "token-expiry",
        "token-scopes",
        "token-renewal",
        "oauth-redirect-https",
        "oauth-public",
        "ssh-key-strength",
        "label-pattern",
      ]);
      expect(doc.runs[0]!.results.map((r) => [r.locations[0]!.logicalLocations[0]!.fullyQualifiedName, r.ruleId])).toEqual(
        EXPECTED.map(([a, rule]) => [a, rule]),
      );
      // Each on the line of main.tf.json that declares it.
      const lines = readFileSync(join(dir, "main.tf.json"), "utf8").split("\n");
      for (const r of doc.runs[0]!.results) {
        const { artifactLocation, region } = r.locations[0]!.physicalLocation;
        expect(artifactLocation.uri).toBe("main.tf.json");
        expect(lines[region.startLine - 1]!.trim()).toBe(`"${r.locations[0]!.logicalLocations[0]!.fullyQualifiedName.split(".")[1]}": {`);
      }
    } finally {
      rmSync(join(dir, "mgmt-policy.json"));
    }
  });

  it("exit 0 when what remains is at warning severity; the defaults without a file", async () => {
    const rules = {
      "token-expiry": "warning",
      "token-scopes": { severity: "warning", read_only_areas: ["account"] },
      "oauth-redirect-https": "warning",
      "ssh-key-strength": "warning",
      "label-pattern": { severity: "warning", pattern: "^team-[a-z]+ " },
    };
    writeFileSync(join(dir, "lenient.json"), JSON.stringify({ ...POLICY, rules }));
    const r = await policy(["--config", "lenient.json", "--format", "json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as PolicyJson).passed).toBe(true);

    // No file: every rule at its default; no naming pattern, no read-only area.
    const defaults = JSON.parse((await policy(["--format", "json"])).stdout) as PolicyJson;
    expect(defaults.findings.filter((f) => f.rule === "label-pattern")).toEqual([]);
    expect(defaults.findings.some((f) => f.address === "mgmt_token.writer")).toBe(false);
    expect(defaults.findings.find((f) => f.address === "mgmt_token.long")).toMatchObject({ rule: "token-expiry", status: "violation" });
  });

  it("exit 1 naming the problem: a bad config with its line, a state instead of a plan", async () => {
    writeFileSync(join(dir, "typo.json"), '{\n  "rules": {\n    "token-expiry": { "max_lifetim": "720h" }\n  }\n}\n');
    const typo = await policy(["--config", "typo.json"]);
    expect({ code: typo.code, stdout: typo.stdout }).toEqual({ code: 1, stdout: "" });
    expect(typo.stderr).toBe('mgmt policy check: typo.json:3: unknown key "max_lifetim" in rules.token-expiry; expected one of severity, max_lifetime\n');

    const missing = await policy(["--config", "nowhere.json"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mgmt policy check: nowhere\.json: cannot read it/);

    const state = await policy(["--plan", "-"], JSON.stringify({ format_version: "1.0", values: {} }));
    expect({ code: state.code, stdout: state.stdout }).toEqual({ code: 1, stdout: "" });
    expect(state.stderr).toMatch(/stdin: this is state JSON/);
    expect((await policy(["--format", "html"])).code).toBe(1);
  });
});
