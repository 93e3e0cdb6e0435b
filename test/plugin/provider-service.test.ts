/** @tier unit */
/**
 * tfplugin6.Provider round trips through the fixture plugin, over the real transport:
 * schemas as the engine receives them, values through msgpack both ways, diagnostics with
 * attribute paths, and failures turned into diagnostics instead of crashes.
 */
import { join } from "node:path";
import type { ObjectValue } from "../../src/provider/framework/value";
import { Unknown } from "../../src/provider/framework/value";
import { type BuiltPlugin, buildPlugin } from "./build-fixture";
import { echoSchema, providerSchema, widgetSchema } from "./fixtures/provider";
import { PluginHarness } from "../../testkit/plugin-harness";

let plugin: BuiltPlugin;
let h: PluginHarness;

beforeAll(async () => {
  plugin = await buildPlugin();
  h = await PluginHarness.start({ executable: plugin.executable });
});

afterAll(async () => {
  await h?.kill();
  plugin?.cleanup();
});

const widget = (over: Partial<Record<string, unknown>> = {}): ObjectValue =>
  ({ id: null, name: "one", size: 3, labels: { env: "dev" }, secret: "s3cret", created: null, rule: [{ port: 80, proto: "tcp" }], ...over }) as ObjectValue;

describe("schemas", () => {
  test("GetProviderSchema serves the provider's schemas unchanged", async () => {
    const s = await h.getProviderSchema();
    expect(s.diagnostics).toEqual([]);
    expect(s.provider).toEqual(providerSchema);
    expect(s.resources).toEqual({ mgmt_widget: widgetSchema });
    expect(s.dataSources).toEqual({ mgmt_echo: echoSchema });
  });

  test("wire details the engines depend on", async () => {
    const { raw } = await h.getProviderSchema();
    // An empty provider_meta schema with a block: Terraform dereferences every block.
    expect(raw.provider_meta).toMatchObject({ version: 0, block: { attributes: [], block_types: [] } });
    expect(raw.server_capabilities).toMatchObject({ plan_destroy: false });
    const attrs = raw.resource_schemas.mgmt_widget.block!.attributes;
    expect(attrs.map((a) => a.name)).toEqual(["created", "id", "labels", "name", "secret", "size"]);
    expect(attrs.find((a) => a.name === "labels")!.type.toString()).toBe('["map","string"]');
    expect(attrs.find((a) => a.name === "secret")!.sensitive).toBe(true);
    expect(attrs.find((a) => a.name === "name")!.description_kind).toBe("MARKDOWN");
    expect(raw.resource_schemas.mgmt_widget.block!.block_types[0]).toMatchObject({ type_name: "rule", nesting: "LIST", max_items: 3 });
    expect(raw.resource_schemas.mgmt_widget.version).toBe(1);
  });

  test("GetMetadata lists the types", async () => {
    const m = await h.getMetadata();
    expect(m).toMatchObject({ resources: ["mgmt_widget"], dataSources: ["mgmt_echo"], diagnostics: [] });
  });
});

describe("provider configuration", () => {
  test("ValidateProviderConfig passes diagnostics with paths", async () => {
    expect((await h.validateProviderConfig({ endpoint: "http://x", fail_configure: null })).diagnostics).toEqual([]);
    expect((await h.validateProviderConfig({ endpoint: "", fail_configure: null })).diagnostics).toEqual([
      { severity: "error", summary: "Empty endpoint", attribute: [{ attribute: "endpoint" }] },
    ]);
  });

  test("ValidateProviderConfig tolerates unknown values", async () => {
    expect((await h.validateProviderConfig({ endpoint: Unknown, fail_configure: null })).diagnostics).toEqual([]);
  });

  test("ConfigureProvider", async () => {
    expect((await h.configureProvider({ endpoint: null, fail_configure: true })).diagnostics).toMatchObject([
      { severity: "error", summary: "Configuration failed" },
    ]);
    expect((await h.configureProvider({ endpoint: "http://x", fail_configure: null })).diagnostics).toEqual([]);
  });
});

describe("managed resource lifecycle", () => {
  test("ValidateResourceConfig: errors and warnings with attribute, index and key steps", async () => {
    const r = await h.validateResourceConfig(
      "mgmt_widget",
      widget({
        name: "Bad",
        size: 500,
        labels: { k: "" },
        rule: [
          { port: 80, proto: null },
          { port: 0, proto: null },
        ],
      }),
    );
    expect(r.diagnostics).toEqual([
      { severity: "error", summary: "Invalid name", detail: "Names are lower case.", attribute: [{ attribute: "name" }] },
      { severity: "warning", summary: "Large widget", detail: "Sizes above 100 are slow.", attribute: [{ attribute: "size" }] },
      {
        severity: "error",
        summary: "Invalid port",
        detail: "Port 0 is out of range.",
        attribute: [{ attribute: "rule" }, { index: 1 }, { attribute: "port" }],
      },
      { severity: "warning", summary: "Empty label", attribute: [{ attribute: "labels" }, { key: "k" }] },
    ]);
  });

  test("create, read, update in place, replace, import, destroy", async () => {
    const config = widget();
    // Plan a create: computed attributes come back unknown, private data is returned.
    const plan = await h.planResourceChange("mgmt_widget", { priorState: null, proposedNewState: config, config });
    expect(plan.diagnostics).toEqual([]);
    expect(plan.plannedState).toEqual({ ...config, id: Unknown, created: Unknown });
    expect(plan.requiresReplace).toEqual([]);
    expect(plan.plannedPrivate.toString()).toBe("planned");

    const created = await h.applyResourceChange("mgmt_widget", {
      priorState: null,
      plannedState: plan.plannedState,
      config,
      plannedPrivate: plan.plannedPrivate,
    });
    expect(created.diagnostics).toEqual([]);
    expect(created.newState).toEqual({ ...config, id: expect.stringMatching(/^w-\d+$/), created: "2024-01-01T00:00:00Z" });
    expect(created.private.toString()).toBe("applied:planned");
    const state = created.newState!;

    // Read keeps private state it was given.
    const read = await h.readResource("mgmt_widget", state, created.private);
    expect(read).toEqual({ newState: state, private: created.private, diagnostics: [] });

    // In-place update: no replacement, computed attributes kept; prior private passes through.
    const bigger = { ...state, size: 4 };
    const update = await h.planResourceChange("mgmt_widget", {
      priorState: state,
      proposedNewState: bigger,
      config: { ...bigger, id: null, created: null },
      priorPrivate: created.private,
    });
    expect(update.plannedState).toEqual(bigger);
    expect(update.requiresReplace).toEqual([]);
    expect(update.plannedPrivate).toEqual(created.private);
    const updated = await h.applyResourceChange("mgmt_widget", { priorState: state, plannedState: update.plannedState, config: bigger });
    expect(updated.newState).toEqual(bigger);

    // Renaming requires replacement.
    const renamed = { ...bigger, name: "two" };
    const replace = await h.planResourceChange("mgmt_widget", { priorState: bigger, proposedNewState: renamed, config: renamed });
    expect(replace.requiresReplace).toEqual([[{ attribute: "name" }]]);

    // Import by id.
    const imported = await h.importResourceState("mgmt_widget", state.id as string);
    expect(imported.diagnostics).toEqual([]);
    expect(imported.imported).toEqual([{ typeName: "mgmt_widget", state: bigger, private: Buffer.alloc(0) }]);

    // Destroy: plan_destroy is off, so the engine applies with a null planned state.
    const destroyed = await h.applyResourceChange("mgmt_widget", { priorState: bigger, plannedState: null, config: null });
    expect(destroyed).toEqual({ newState: null, private: Buffer.alloc(0), diagnostics: [] });

    // Gone: read returns null, import reports it.
    expect((await h.readResource("mgmt_widget", bigger)).newState).toBeNull();
    expect((await h.importResourceState("mgmt_widget", state.id as string)).diagnostics).toMatchObject([
      { severity: "error", summary: "Cannot import non-existent remote object" },
    ]);
  });

  test("UpgradeResourceState passes raw JSON and the stored version through", async () => {
    const v0 = { id: "w-9", title: "old", size: 1, labels: null, secret: null, created: "2020-01-01T00:00:00Z", rule: [] };
    const r = await h.upgradeResourceState("mgmt_widget", 0, v0);
    expect(r.diagnostics).toEqual([]);
    expect(r.upgradedState).toEqual({ id: "w-9", name: "old", size: 1, labels: null, secret: null, created: "2020-01-01T00:00:00Z", rule: [] });
    const v1 = { ...r.upgradedState };
    expect((await h.upgradeResourceState("mgmt_widget", 1, v1)).upgradedState).toEqual(v1);
  });

  test("StopProvider answers with an empty error", async () => {
    expect(await h.stopProvider()).toEqual({ error: "" });
  });
});

describe("data sources", () => {
  test("ValidateDataResourceConfig and ReadDataSource", async () => {
    expect((await h.validateDataResourceConfig("mgmt_echo", { input: "", output: null, length: null })).diagnostics).toMatchObject([
      { severity: "error", attribute: [{ attribute: "input" }] },
    ]);
    const r = await h.readDataSource("mgmt_echo", { input: "héllo", output: null, length: null });
    expect(r).toEqual({ state: { input: "héllo", output: "HÉLLO", length: 5 }, diagnostics: [] });
  });
});

describe("failures become diagnostics, never crashes", () => {
  test("a provider method that throws", async () => {
    const config = widget({ name: "explode" });
    const r = await h.planResourceChange("mgmt_widget", { priorState: null, proposedNewState: config, config });
    expect(r.plannedState).toBeNull();
    expect(r.diagnostics).toEqual([
      { severity: "error", summary: "Unexpected provider error", detail: "PlanResourceChange: the widget exploded while planning" },
    ]);
  });

  test("a provider method that returns a rejected promise", async () => {
    const config = widget({ name: "reject" });
    const r = await h.planResourceChange("mgmt_widget", { priorState: null, proposedNewState: config, config });
    expect(r.diagnostics).toMatchObject([{ severity: "error", detail: expect.stringContaining("planning was rejected") }]);
  });

  test("a provider method that throws synchronously, and one that rejects", async () => {
    const sync = await h.readDataSource("mgmt_echo", { input: "throw-sync", output: null, length: null });
    expect(sync.diagnostics).toMatchObject([{ severity: "error", detail: expect.stringContaining("echo failed synchronously") }]);
    const rejected = await h.readDataSource("mgmt_echo", { input: "reject", output: null, length: null });
    expect(rejected.diagnostics).toMatchObject([{ severity: "error", detail: expect.stringContaining("echo was rejected") }]);
  });

  test("a provider result that does not fit the schema names the attribute", async () => {
    const config = widget({ name: "bad-state" });
    const plan = await h.planResourceChange("mgmt_widget", { priorState: null, proposedNewState: config, config });
    const r = await h.applyResourceChange("mgmt_widget", { priorState: null, plannedState: plan.plannedState, config });
    expect(r.diagnostics).toMatchObject([{ severity: "error", summary: "Provider returned an invalid new state", attribute: [{ attribute: "id" }] }]);
  });

  test("unknown type names are named in the diagnostic", async () => {
    const r = await h.validateResourceConfig("mgmt_nope", {});
    expect(r.diagnostics).toMatchObject([{ severity: "error", summary: expect.stringContaining('"mgmt_nope"') }]);
    const d = await h.readDataSource("mgmt_nothing", {});
    expect(d.diagnostics).toMatchObject([{ severity: "error", summary: expect.stringContaining('"mgmt_nothing"') }]);
    const i = await h.importResourceState("mgmt_nope", "x");
    expect(i.diagnostics).toMatchObject([{ severity: "error", summary: expect.stringContaining('"mgmt_nope"') }]);
  });

  test("a value that does not decode against the schema", async () => {
    const raw = await h.unary<{ diagnostics: { severity: string; summary: string }[] }>("provider", "ValidateResourceConfig", {
      type_name: "mgmt_widget",
      config: { msgpack: Buffer.from([0x81, 0xa3, 0x78, 0x79, 0x7a, 0x01]) }, // {"xyz": 1}
    });
    expect(raw.diagnostics).toMatchObject([{ severity: "ERROR", summary: "Invalid value from the engine" }]);
  });

  test("JSON DynamicValues are accepted when msgpack is absent", async () => {
    const raw = await h.unary<{ state: { msgpack: Buffer } }>("provider", "ReadDataSource", {
      type_name: "mgmt_echo",
      config: { json: Buffer.from(JSON.stringify({ input: "js", output: null, length: null })) },
    });
    expect(h.decode(raw.state, ["object", { input: "string", output: "string", length: "number" }])).toEqual({ input: "js", output: "JS", length: 2 });
  });

  test("the process survived all of it, printed nothing on stdout, and logged the errors to stderr", async () => {
    expect(await h.healthCheck()).toBe("SERVING");
    expect(h.stdoutAfterHandshake).toBe("");
    const logged = h.stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.some((l) => l["@level"] === "error" && String(l.error).includes("exploded"))).toBe(true);
  });
});

describe("a provider that fails to load", () => {
  test("every call answers with a diagnostic; the transport stays up", async () => {
    const bad = await buildPlugin(join(__dirname, "fixtures", "broken-main.ts"));
    const b = await PluginHarness.start({ executable: bad.executable });
    try {
      const s = await b.getProviderSchema();
      expect(s.diagnostics).toMatchObject([{ severity: "error", summary: "Failed to load the provider", detail: expect.stringContaining("cannot load") }]);
      expect(await b.healthCheck()).toBe("SERVING");
      expect(await b.shutdown()).toBe(0);
    } finally {
      await b.kill();
      bad.cleanup();
    }
  });
});
