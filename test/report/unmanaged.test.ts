/**
 * Unmanaged objects: the pure matching, naming and import blocks, the drift report built on them, and
 * the per-type table listing a real `mgmt serve` (default fixtures, a second token acting).
 */
import { MgmtClient } from "../../src/client";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { driftReportJson, renderDriftMarkdown } from "../../src/report/drift-report";
import { FULL } from "../../src/report/truncate";
import { parsePlan } from "../../src/report/plan-model";
import { driftEntries } from "../../src/report/summary";
import { findUnmanaged, importBlocks, resourceName, type LiveObject } from "../../src/report/unmanaged";
import { tokenRole, UNMANAGED_TYPES } from "../../src/cli/unmanaged-types";
import { folds } from "./run-mgmt";
import { key, rc } from "./plans";

const types = (...names: string[]) => UNMANAGED_TYPES.filter((t) => names.includes(t.type));

describe("findUnmanaged", () => {
  const live = new Map<string, LiveObject[]>([
    [
      "mgmt_ssh_key",
      [
        { importId: "10", label: "managed" },
        { importId: "11", label: "Build Runner" },
        { importId: "12", label: "build runner" },
        { importId: "2", label: "" },
      ],
    ],
    [
      "mgmt_token",
      [
        { importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" },
        { importId: "5", label: "ci", role: "acting" },
        { importId: "6", label: "old laptop" },
        { importId: "7", label: "kept" },
      ],
    ],
    [
      "mgmt_tag",
      [
        { importId: "web", label: "web" },
        { importId: "prod", label: "prod" },
      ],
    ],
  ]);
  const state = [
    { address: "mgmt_ssh_key.build_runner", type: "mgmt_ssh_key", values: { id: "10" } },
    { address: "module.x.mgmt_token.kept", type: "mgmt_token", values: { id: "7" } },
    { address: "mgmt_tag.web", type: "mgmt_tag", values: { id: "web", label: "web" } },
  ];

  it("reports only what no state holds, names addresses that clash with nothing, and sets the expected tokens apart", () => {
    const r = findUnmanaged(types("mgmt_ssh_key", "mgmt_token", "mgmt_tag"), state, live);
    expect(r.unmanaged).toEqual([
      { type: "mgmt_ssh_key", importId: "2", label: "", to: "mgmt_ssh_key.ssh_key_2" },
      { type: "mgmt_ssh_key", importId: "11", label: "Build Runner", to: "mgmt_ssh_key.build_runner_2" },
      { type: "mgmt_ssh_key", importId: "12", label: "build runner", to: "mgmt_ssh_key.build_runner_3" },
      { type: "mgmt_token", importId: "6", label: "old laptop", to: "mgmt_token.old_laptop" },
      { type: "mgmt_tag", importId: "prod", label: "prod", to: "mgmt_tag.prod" },
    ]);
    expect(r.known).toEqual([
      { type: "mgmt_token", importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" },
      { type: "mgmt_token", importId: "5", label: "ci", role: "acting" },
    ]);
  });

  it("looks only at the types it is given", () => {
    expect(findUnmanaged(types("mgmt_tag"), state, live).unmanaged.map((u) => u.to)).toEqual(["mgmt_tag.prod"]);
  });

  it("derives resource names HCL accepts", () => {
    expect(resourceName("Alice's Laptop (2024)", "f")).toBe("alice_s_laptop_2024");
    expect(resourceName("9 lives", "ssh_key_4")).toBe("ssh_key_4_9_lives");
    expect(resourceName("ünïcödé", "f")).toBe("unicode");
    expect(resourceName("---", "f")).toBe("f");
    expect(resourceName("x".repeat(100), "f")).toHaveLength(48);
  });

  it("writes import blocks whose ids cannot be read as templates", () => {
    const hcl = importBlocks([{ type: "mgmt_tag", importId: 'a${b}%{c}"d', label: "odd\nlabel", to: "mgmt_tag.odd" }]);
    expect(hcl).toContain('# mgmt_tag "odd\\nlabel"\nimport {\n  to = mgmt_tag.odd\n  id = "a$${b}%%{c}\\"d"\n}\n');
    expect(hcl.split("\n").filter((l) => l.startsWith("#"))).toHaveLength(3);
  });
});

describe("tokenRole", () => {
  const acting = "abcdefghijklmnop-the-rest-of-the-token";
  it("recognises the acting token by the 16-character prefix the API shows, then the bootstrap token by its label", () => {
    expect(tokenRole({ label: "anything", token: "abcdefghijklmnop" }, acting)).toBe("acting");
    expect(tokenRole({ label: "mgmt serve 2026-11-23T15:00:00", token: "zzzzzzzzzzzzzzzz" }, acting)).toBe("bootstrap");
    expect(tokenRole({ label: "mgmt serve later", token: "zzzzzzzzzzzzzzzz" }, acting)).toBeUndefined();
    expect(tokenRole({ label: "ci", token: "abcdefghijklmnoX" }, acting)).toBeUndefined();
    expect(tokenRole({ label: "ci", token: "abc" }, "abc")).toBeUndefined();
  });
});

describe("drift report", () => {
  const refreshOnly = parsePlan({
    format_version: "1.2",
    resource_drift: [
      rc("mgmt_ssh_key.a", ["update"], {
        before: { ...key(1, "a"), label: "SECRET-label" },
        after: key(1, "by hand"),
        beforeSensitive: { label: true },
        afterSensitive: {},
      }),
      rc("mgmt_ssh_key.b", ["delete"], { before: key(2, "b") }),
    ],
  });
  const unmanaged = findUnmanaged(
    types("mgmt_ssh_key", "mgmt_token"),
    [],
    new Map([
      ["mgmt_ssh_key", [{ importId: "3", label: "stray" }]],
      ["mgmt_token", [{ importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" as const }]],
    ]),
  );

  it("lists changed, deleted and unmanaged objects and the tokens it did not count", () => {
    const r = { drift: driftEntries(refreshOnly, "all"), unmanaged };
    const md = renderDriftMarkdown(r, FULL);
    expect(md).toContain("**1 changed outside of Terraform, 1 deleted outside of Terraform, 1 unmanaged**");
    const f = folds(md);
    expect(f["Changed outside of Terraform, state → live"]).toContain('- `mgmt_ssh_key.a`\n  - `label`: `(sensitive)` → `"by hand"`');
    expect(f["Deleted outside of Terraform"]).toContain("- `mgmt_ssh_key.b`");
    expect(f["Not managed by any state"]).toContain('- id `3` `"stray"` → import as `mgmt_ssh_key.stray`');
    expect(md).toContain('- `mgmt_token` id `1` `"mgmt serve 2026-01-01T00:00:00"`: the token `mgmt serve` minted at start');
    expect(md).not.toContain("SECRET-label");
    expect(driftReportJson(r)).toEqual({
      format_version: 1,
      summary: { drifted: 1, deleted: 1, unmanaged: 1 },
      drift: [
        { address: "mgmt_ssh_key.a", type: "mgmt_ssh_key", actions: ["update"], attributes: ["label"] },
        { address: "mgmt_ssh_key.b", type: "mgmt_ssh_key", actions: ["delete"], attributes: [] },
      ],
      unmanaged: [{ type: "mgmt_ssh_key", id: "3", label: "stray", to: "mgmt_ssh_key.stray" }],
      known: [{ type: "mgmt_token", id: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" }],
      has_drift: true,
    });
  });

  it("says so when there is nothing", () => {
    const quiet = { drift: [], unmanaged: findUnmanaged(types("mgmt_ssh_key"), [], new Map()) };
    expect(renderDriftMarkdown(quiet, FULL)).toContain("**No drift** and no unmanaged objects.");
    expect(driftReportJson(quiet)).toMatchObject({ summary: { drifted: 0, deleted: 0, unmanaged: 0 }, has_drift: false });
    expect(renderDriftMarkdown({ drift: [] }, FULL, "Drift: prod")).toBe("## Drift: prod\n\n**No drift.**\n");
  });
});

describe("the per-type table against mgmt serve", () => {
  let server: RunningServer;
  let client: MgmtClient;
  let acting: string;

  beforeAll(async () => {
    server = await startServe();
    const boot = new MgmtClient({ url: server.url, token: server.token });
    acting = (await boot.createToken({ label: "ci" })).token;
    await boot.close();
    client = new MgmtClient({ url: server.url, token: acting });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const list = async (type: string) => UNMANAGED_TYPES.find((t) => t.type === type)!.list({ client, actingToken: acting });

  it("lists the acting user's SSH keys with their ids", async () => {
    const made = await client.createSshKey({
      label: "made here",
      ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0T5m1xJ0lB6T8y2oZ0qgqzq0P3dzP7iV9rPz0wB8f1 t@test",
    });
    const keys = await list("mgmt_ssh_key");
    expect(keys).toContainEqual({ importId: String(made.id), label: "made here" });
    // The default fixtures give the bootstrap user one key; other users' keys are not listed.
    expect(keys.map((k) => k.label).sort()).toEqual(["build runner", "made here"]);
  });

  it("marks the bootstrap token and the acting token, and nothing else", async () => {
    const tokens = await list("mgmt_token");
    expect(tokens.map((t) => [t.role, t.role === "bootstrap" ? t.label.replace(/ \d{4}-.*$/, " <time>") : t.label]).sort()).toEqual([
      ["acting", "ci"],
      ["bootstrap", "mgmt serve <time>"],
    ]);
  });

  it("lists OAuth clients by id and tags by label", async () => {
    expect((await list("mgmt_oauth_client")).map((c) => c.label).sort()).toEqual(["Nightly Backup", "Status Dashboard"]);
    const tags = await list("mgmt_tag");
    expect(tags.length).toBeGreaterThan(0);
    for (const t of tags) expect(t.importId).toBe(t.label);
    expect(tags.map((t) => t.label)).toEqual(expect.arrayContaining(["production", "web", "staging"]));
  });
});
