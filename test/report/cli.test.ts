/** The two commands' arguments, help and exit codes, as CI sees them (the built CLI in a process of its own). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineEnvironment, writeCliConfig } from "../../src/harness/engine";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { runMgmt } from "./run-mgmt";
import { key, plan, rc } from "./plans";

const changes = JSON.stringify(plan({ resource_changes: [rc("mgmt_ssh_key.a", ["create"], { after: { label: "a" } })] }));
const none = JSON.stringify(plan({ resource_changes: [rc("mgmt_ssh_key.a", ["no-op"], { before: key(1, "a"), after: key(1, "a") })] }));

describe("mgmt plan-report", () => {
  it.each([
    ["changes, --detailed-exitcode", ["--detailed-exitcode"], changes, 2],
    ["no changes, --detailed-exitcode", ["--detailed-exitcode"], none, 0],
    ["changes without --detailed-exitcode", [], changes, 0],
  ])("exits by the plan: %s", async (_name, args, input, code) => {
    const r = await runMgmt(["plan-report", ...args], { input });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code, stderr: "" });
    expect(r.stdout).toMatch(/^## Plan result\n/);
  });

  it("prints the report of an errored plan but exits 1", async () => {
    const r = await runMgmt(["plan-report", "--detailed-exitcode"], { input: JSON.stringify({ ...JSON.parse(changes), errored: true }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("> [!CAUTION]");
    expect(r.stderr).toBe("mgmt plan-report: the engine marked this plan as errored; it is incomplete\n");
  });

  it.each([
    [["--format", "yaml"], /--format must be markdown or json, not 'yaml'/],
    [["--max-chars", "lots"], /--max-chars must be an integer of at least 200/],
    [["--plan", "/no/such/plan.json"], /cannot read \/no\/such\/plan\.json: ENOENT/],
    [["--bogus"], /Unknown option '--bogus'/],
    [["extra"], /unexpected argument 'extra'/i],
  ])("refuses %j with exit 1 and a message", async (args, message) => {
    const r = await runMgmt(["plan-report", ...args], { input: changes });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });

  it("--policy: the check's JSON after the plan, its counts in the JSON; a file that is not one refused with exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mgmt-plan-report-policy-"));
    try {
      const passed = { format_version: "1", passed: true, rules: [], findings: [], stale_waivers: [] };
      const summary = { checked: 1, errors: 0, warnings: 0, waived: 0, waivers_expired: 0, not_checkable: 0, stale_waivers: 0 };
      writeFileSync(join(dir, "policy.json"), JSON.stringify({ ...passed, summary }));
      writeFileSync(join(dir, "report.json"), changes);
      const md = await runMgmt(["plan-report", "--policy", join(dir, "policy.json")], { input: changes });
      expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 0, stderr: "" });
      expect(md.stdout).toMatch(/^## Plan result\n[^]*\n\n## Policy\n\n\*\*Passed\.\*\* 1 resource\(s\) checked/);
      const json = await runMgmt(["plan-report", "--format", "json", "--policy", join(dir, "policy.json")], { input: changes });
      expect((JSON.parse(json.stdout) as { policy: unknown }).policy).toEqual({ passed: true, ...summary });

      for (const [args, message] of [
        [["--policy", join(dir, "none.json")], /^mgmt plan-report: cannot read the policy check .*none\.json: ENOENT/],
        [["--policy", join(dir, "report.json")], /^mgmt plan-report: --policy .*report\.json: not the output of 'mgmt policy check --format json'\n$/],
        [["--policy", "-"], /--policy - and the plan cannot both be read from stdin/],
      ] as const) {
        const r = await runMgmt(["plan-report", ...args], { input: changes });
        expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
        expect(r.stderr).toMatch(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--synth-policy: no plan, the findings the synth stopped on as the Policy section; an unreadable file exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mgmt-plan-report-synth-"));
    try {
      const finding = {
        rule: "token-scopes",
        severity: "error",
        status: "violation",
        address: "mgmt_token.admin (construct team/admin)",
        type: "mgmt_token",
        message: "`scopes` is `*`: narrow it",
      };
      const summary = { checked: 2, errors: 1, warnings: 0, waived: 0, waivers_expired: 0, not_checkable: 0, stale_waivers: 0 };
      writeFileSync(
        join(dir, "synth.json"),
        JSON.stringify({ format_version: "1", passed: false, summary, rules: [], findings: [finding], stale_waivers: [] }),
      );
      const md = await runMgmt(["plan-report", "--synth-policy", join(dir, "synth.json"), "--title", "Plan: team"], { input: "" });
      expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 0, stderr: "" });
      expect(md.stdout).toMatch(/^## Plan: team\n\n:x: \*\*The synth stopped on the account's rules: no plan was made\.\*\*/);
      expect(md.stdout).toContain("\n## Policy\n\n**1 violation at error severity**");
      expect(md.stdout).toContain("`mgmt_token.admin (construct team/admin)` **token-scopes**");
      const json = await runMgmt(["plan-report", "--format", "json", "--synth-policy", join(dir, "synth.json")], { input: "" });
      expect(JSON.parse(json.stdout)).toEqual({ synth_stopped: true, policy: { passed: false, ...summary } });
      const bad = await runMgmt(["plan-report", "--synth-policy", join(dir, "none.json")], { input: "" });
      expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 1, stdout: "" });
      expect(bad.stderr).toMatch(/^mgmt plan-report: --synth-policy .*none\.json: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--reviewed: exit 0 when the plan's actions are those review saw, 3 naming each difference when not; --rotations-only: 3 for any other change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mgmt-plan-report-reviewed-"));
    try {
      const summaryOf = async (input: string) => (await runMgmt(["plan-report", "--format", "json"], { input })).stdout;
      writeFileSync(join(dir, "reviewed.json"), await summaryOf(changes));
      const same = await runMgmt(["plan-report", "--reviewed", join(dir, "reviewed.json")], { input: changes });
      expect({ code: same.code, stderr: same.stderr }).toEqual({ code: 0, stderr: "" });
      expect(same.stdout).not.toContain("Not what review saw");

      // Review saw no changes; the plan now creates a key (another merge, or drift, in between).
      writeFileSync(join(dir, "reviewed.json"), await summaryOf(none));
      const moved = await runMgmt(["plan-report", "--reviewed", join(dir, "reviewed.json")], { input: changes });
      expect(moved.code).toBe(3);
      expect(moved.stdout).toContain(
        "## Not what review saw\n\nThe plan made now differs from the one the review showed:\n\n- `mgmt_ssh_key.a`: not in the reviewed plan, now create\n",
      );
      expect(moved.stderr).toBe("mgmt plan-report: the plan differs from the one review saw:\n  `mgmt_ssh_key.a`: not in the reviewed plan, now create\n");

      writeFileSync(join(dir, "bogus.json"), "{}");
      const bogus = await runMgmt(["plan-report", "--reviewed", join(dir, "bogus.json")], { input: changes });
      expect({ code: bogus.code, stdout: bogus.stdout }).toEqual({ code: 1, stdout: "" });
      expect(bogus.stderr).toMatch(/--reviewed .*bogus\.json: not the output of 'mgmt plan-report --format json'/);

      const scheduled = await runMgmt(["plan-report", "--rotations-only"], { input: changes });
      expect(scheduled.code).toBe(3);
      expect(scheduled.stderr).toBe("mgmt plan-report: the plan does more than rotate tokens:\n  `mgmt_ssh_key.a`: create\n");
      expect((await runMgmt(["plan-report", "--rotations-only"], { input: none })).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads unknown format versions as an error even with --detailed-exitcode", async () => {
    const r = await runMgmt(["plan-report", "--detailed-exitcode"], { input: '{"format_version":"2.0","resource_changes":[]}' });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: 'mgmt plan-report: unsupported plan format_version "2.0": this reads format 1.x\n',
    });
  });
});

describe("mgmt drift", () => {
  it.each([
    [["--import-out", "x.tf"], /--import-out needs --unmanaged/],
    [["--dir", "/no/such/stack"], /no such folder: \/no\/such\/stack/],
    [["--engine", "pulumi"], /--engine must be tofu or terraform, not 'pulumi'/],
    [["--format", "html"], /--format must be markdown or json/],
  ])("refuses %j with exit 1 before running anything", async (args, message) => {
    const r = await runMgmt(["drift", ...args]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).toMatch(message);
  });

  it("gets on without init where dev_overrides make init fail (the engine needs none then)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mgmt-drift-dev-"));
    try {
      writeFileSync(
        join(dir, "main.tf.json"),
        JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, provider: { mgmt: {} } }),
      );
      const env = engineEnvironment({ cliConfig: writeCliConfig(dir, "dev"), url: "http://127.0.0.1:9/v4", token: "unused" });
      const r = await runMgmt(["drift", "--dir", dir, "--format", "json"], { env });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(r.stdout)).toMatchObject({ summary: { drifted: 0, deleted: 0 }, has_drift: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 1 when the engine fails, with its message", async () => {
    const r = await runMgmt(["drift", "--dir", "/", "--engine", "terraform"], { env: { ...process.env, PATH: "/nonexistent" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mgmt drift: cannot run terraform: .*ENOENT/);
  });
});

describe("mgmt", () => {
  it("lists both commands (their --help is checked with every subcommand's in test/cli)", async () => {
    const top = await runMgmt(["--help"]);
    expect(top.stdout).toMatch(/^ {2}plan-report /m);
    expect(top.stdout).toMatch(/^ {2}drift /m);
  });
});
