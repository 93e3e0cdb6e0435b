/** @tier engine */
/**
 * The drift report in a cdktf stack names unmanaged objects as the TypeScript `--import-out FILE.ts`
 * writes them (construct ids and classes), not as HCL addresses; and with --unmanaged, tokens come
 * first, as live credentials, with the call that revokes each. Pure report, the stack detection, and
 * one real run of `mgmt drift` on a synthesized-looking stack folder against `mgmt serve`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { isCdktfStack } from "../../src/cli/drift";
import { UNMANAGED_TYPES } from "../../src/cli/unmanaged-types";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { driftReportJson, renderDriftMarkdown, type DriftReport } from "../../src/report/drift-report";
import { cdktfImportModule, type ImportSubject } from "../../src/report/import-cdktf";
import { FULL } from "../../src/report/truncate";
import { findUnmanaged, type LiveObject } from "../../src/report/unmanaged";
import { sshKeyText } from "../../testkit/ssh-keys";
import { folds, runMgmt } from "./run-mgmt";

const live = new Map<string, LiveObject[]>([
  [
    "mgmt_ssh_key",
    [
      { importId: "11", label: "build runner" },
      { importId: "12", label: "Build Runner" },
    ],
  ],
  [
    "mgmt_token",
    [
      { importId: "5", label: "ci", role: "acting" },
      { importId: "6", label: "old laptop" },
      { importId: "9", label: "deploy" },
    ],
  ],
  ["mgmt_tag", [{ importId: "prod", label: "prod" }]],
]);
// The stack already has a resource named as the first key's construct id would be.
const state = [{ address: "mgmt_ssh_key.ssh_key_build_runner", type: "mgmt_ssh_key", values: { id: "10" } }];
const unmanaged = findUnmanaged(UNMANAGED_TYPES, state, live);
const taken = ["ssh_key_build_runner"];
const cdktfReport: DriftReport = { drift: [], unmanaged, cdktf: { provider: "mgmt", taken } };
const hclReport: DriftReport = { drift: [], unmanaged };

describe("in a cdktf stack", () => {
  it("names each unmanaged object by the construct id and class the generated module uses", () => {
    const subjects: ImportSubject[] = unmanaged.unmanaged.map((o) => ({ ...o, attributes: [], values: {} }));
    const module = cdktfImportModule(subjects, { bindings: "@mgmt/cdktf-provider-mgmt", provider: "mgmt", taken });
    const moduleIds = [...module.matchAll(/new (\w+\.\w+)\(scope, "(\w+)"/g)].map((m) => [m[1], m[2]]);
    expect(moduleIds).toEqual([
      ["token.Token", "token_old_laptop"],
      ["token.Token", "token_deploy"],
      ["sshKey.SshKey", "ssh_key_build_runner_2"],
      ["sshKey.SshKey", "ssh_key_build_runner_3"],
      ["tag.Tag", "tag_prod"],
    ]);

    const md = renderDriftMarkdown(cdktfReport, FULL);
    const listed = folds(md)["Not managed by any state"]!;
    for (const [construct, id] of moduleIds) expect(listed).toContain(`→ import as \`${id}\` (\`new ${construct}(scope, "${id}", …)\`)`);
    expect(listed).not.toMatch(/import as `mgmt_/);
    expect(listed).toContain("--import-out src/unmanaged.ts");
    expect(listed).toContain("importUnmanaged(this)");
    expect(md).not.toContain("imports.tf");
    expect(md).not.toContain("import {}");

    const json = driftReportJson(cdktfReport);
    expect(json.unmanaged!.map((u) => [u.construct, u.construct_id, u.to])).toEqual(
      moduleIds.map(([construct, id]) => [construct, id, `mgmt_${construct!.split(".")[0]!.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}.${id}`]),
    );
  });

  it("speaks HCL elsewhere, as before", () => {
    const md = renderDriftMarkdown(hclReport, FULL);
    expect(folds(md)["Not managed by any state"]).toContain('- id `11` `"build runner"` → import as `mgmt_ssh_key.build_runner`');
    expect(md).toContain("--import-out imports.tf");
    expect(driftReportJson(hclReport).unmanaged!.every((u) => u.construct_id === undefined)).toBe(true);
  });
});

describe("unmanaged tokens", () => {
  it("come first: called out as live credentials before anything else, each with its revoking call", () => {
    for (const report of [cdktfReport, { ...hclReport, drift: [] }]) {
      const md = renderDriftMarkdown(report, FULL);
      expect(md).toMatch(
        /^## Drift report\n\n\*\*0 changed outside of Terraform, 0 deleted outside of Terraform, 5 unmanaged \(2 of them tokens\)\*\*\n\n> \[!CAUTION\]\n/,
      );
      const callout = md.split("> [!CAUTION]\n")[1]!.split("\n\n")[0]!;
      expect(callout).toContain("**2 personal access tokens no state manages: live credentials.**");
      expect(callout).toContain('> - id `6` `"old laptop"`: `DELETE /profile/tokens/6`');
      expect(callout).toContain('> - id `9` `"deploy"`: `DELETE /profile/tokens/9`');
      expect(callout).toContain('curl -X DELETE -H "Authorization: Bearer $MGMT_TOKEN" "$MGMT_URL/profile/tokens/ID"');
      expect(callout).toMatch(/remove it from the (stack|configuration); the next apply deletes the `mgmt_token`, which revokes it/);
      // Not the token it acts with: that one is expected, and not a finding.
      expect(callout).not.toContain('"ci"');
      expect(md.indexOf("> [!CAUTION]")).toBeLessThan(md.indexOf("<details"));
      const listed = folds(md)["Not managed by any state"]!;
      expect(listed.trimStart().startsWith("**`mgmt_token`**")).toBe(true);
    }
    const json = driftReportJson(hclReport);
    expect(json.unmanaged!.slice(0, 2)).toEqual([
      { type: "mgmt_token", id: "6", label: "old laptop", to: "mgmt_token.old_laptop", revoke: "DELETE /profile/tokens/6" },
      { type: "mgmt_token", id: "9", label: "deploy", to: "mgmt_token.deploy", revoke: "DELETE /profile/tokens/9" },
    ]);
    expect(json.unmanaged!.slice(2).some((u) => "revoke" in u)).toBe(false);
  });

  it("are left out of the callout, and the summary, when there are none", () => {
    const keysOnly = findUnmanaged(UNMANAGED_TYPES, [], new Map([["mgmt_ssh_key", [{ importId: "3", label: "stray" }]]]));
    const md = renderDriftMarkdown({ drift: [], unmanaged: keysOnly }, FULL);
    expect(md).not.toContain("CAUTION");
    expect(md).toContain("**0 changed outside of Terraform, 0 deleted outside of Terraform, 1 unmanaged**");
  });
});

describe("isCdktfStack", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "mgmt-cdktf-detect-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("knows a synthesized stack folder by cdk.tf.json, and a project's folders by cdktf.json up to three levels up", () => {
    const synthesized = join(root, "a", "somewhere");
    mkdirSync(synthesized, { recursive: true });
    writeFileSync(join(synthesized, "cdk.tf.json"), "{}");
    expect(isCdktfStack(synthesized)).toBe(true);

    const project = join(root, "b");
    const stack = join(project, "cdktf.out", "stacks", "prod");
    mkdirSync(stack, { recursive: true });
    expect(isCdktfStack(stack)).toBe(false);
    writeFileSync(join(project, "cdktf.json"), "{}");
    expect(isCdktfStack(stack)).toBe(true);
    expect(isCdktfStack(join(project))).toBe(true);

    const hcl = join(root, "c", "infra");
    mkdirSync(hcl, { recursive: true });
    writeFileSync(join(hcl, "main.tf"), "");
    expect(isCdktfStack(hcl)).toBe(false);
  });
});

describe("mgmt drift --unmanaged on a cdktf stack folder", () => {
  const engine = availableEngines()[0]!;
  let server: RunningServer;
  let root: string;

  beforeAll(async () => {
    server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"]);
    root = mkdtempSync(join(tmpdir(), "mgmt-drift-cdktf-"));
  });
  afterAll(async () => {
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("names unmanaged objects by construct id and calls out the unmanaged token first", async () => {
    const client = new MgmtClient({ url: server.url, token: server.token });
    const stray = await client.createSshKey({ label: "build runner", ssh_key: sshKeyText("ed25519") });
    const leftover = await client.createToken({ label: "old laptop", scopes: "account:read_only" });
    await client.close();
    // What `cdktf synth` leaves in cdktf.out/stacks/NAME: cdk.tf.json, here with one managed key.
    const stack = join(root, "cdktf.out", "stacks", "prod");
    mkdirSync(stack, { recursive: true });
    writeFileSync(
      join(stack, "cdk.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: [{}] },
        resource: { mgmt_ssh_key: { ssh_key_laptop: { label: "laptop", ssh_key: sshKeyText("ed25519") } } },
      }),
    );
    const env = engineEnvironment({ cliConfig: writeCliConfig(root, "mirror"), url: server.url, token: server.token });
    const init = await runEngine(engine, ["init", "-no-color"], stack, env);
    expect(init.code).toBe(0);
    const apply = await runEngine(engine, ["apply", "-auto-approve", "-no-color"], stack, env);
    expect(apply.code).toBe(0);

    const r = await runMgmt(["drift", "--dir", stack, "--engine", engine.name, "--unmanaged"], { env });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "" });
    expect(r.stdout).toMatch(/\*\*0 changed outside of Terraform, 0 deleted outside of Terraform, 2 unmanaged \(1 of them a token\)\*\*\n\n> \[!CAUTION\]\n/);
    expect(r.stdout).toContain(`> - id \`${leftover.id}\` \`"old laptop"\`: \`DELETE /profile/tokens/${leftover.id}\``);
    const listed = folds(r.stdout)["Not managed by any state"]!;
    expect(listed).toContain(
      `- id \`${stray.id}\` \`"build runner"\` → import as \`ssh_key_build_runner\` (\`new sshKey.SshKey(scope, "ssh_key_build_runner", …)\`)`,
    );
    expect(listed).toContain(`- id \`${leftover.id}\` \`"old laptop"\` → import as \`token_old_laptop\``);
    expect(r.stdout).not.toContain("imports.tf");
    expect(r.stdout).not.toContain(leftover.token);
  });
});
