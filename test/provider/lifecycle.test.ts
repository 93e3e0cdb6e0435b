/** @tier unit */
/** The framework's generic rules, on the real mgmt_ssh_key declaration and on small declarations made here. */
import { bool, int, list, listBlock, number, object, set, string } from "../../src/provider/framework/attributes";
import { typedEqual } from "../../src/provider/framework/equality";
import { planChange, settleApplied, settleRead, validateAttributes } from "../../src/provider/framework/lifecycle";
import { defineResource, type ResourceDefinition } from "../../src/provider/framework/resource";
import { schemaOf } from "../../src/provider/framework/schema";
import { Unknown, type ObjectValue, type TfValue } from "../../src/provider/framework/value";
import { sshKeyResource } from "../../src/provider/resources/ssh-key/resource";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBeUztkPweGIUCJOwHlxqcQTvr98iCN4oYELKVoUNI4u alice@laptop";
const SAME_KEY_OTHER_COMMENT = "  ssh-ed25519   AAAAC3NzaC1lZDI1NTE5AAAAIBeUztkPweGIUCJOwHlxqcQTvr98iCN4oYELKVoUNI4u   alice@desktop\n";
const OTHER_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP6/CI1S2PzAHh0e+PwX46WPogTSnk/LV4ych5nTJ2D4 bob";
const NOW = new Date("2026-11-23T12:00:00Z");

const def = sshKeyResource as ResourceDefinition<unknown>;
const prior = { id: "7", label: "laptop", ssh_key: KEY, created: "2026-11-21T06:00:00Z" };
const plan = (d: ResourceDefinition<unknown>, p: ObjectValue | null, config: ObjectValue, proposed: ObjectValue = config) =>
  planChange(d, p, proposed, config, NOW);

/** A resource declaring one of each kind of rule, with CRUD that is never called here. */
const widget = defineResource<unknown>()({
  typeName: "test_widget",
  description: "A test resource.",
  importId: { description: "its id", example: "1" },
  attributes: {
    id: string("computed", "Id.", { keepPrior: true }),
    name: string("required", "Name.", { validate: (v) => (v.length > 3 ? "must be at most 3 characters" : undefined) }),
    size: int("optional", "Size.", { requiresReplace: (a, b) => b < a }),
    enabled: bool("optional_computed", "Enabled.", { default: false }),
    members: set("optional", "Members.", "number", { requiresReplace: true }),
    revision: number("computed", "Changes on every update."),
    stamp: string("optional_computed", "Kept from prior.", { keepPrior: true }),
    one: string("optional", "Conflicts with two.", { conflictsWith: ["two"] }),
    two: string("optional", "Conflicts with one."),
  },
  create: async () => blank,
  read: async () => null,
  update: async () => blank,
  delete: async () => {},
  importState: async () => null,
});
const blank = { id: null, name: "abc", size: null, enabled: null, members: null, revision: null, stamp: null, one: null, two: null };
const widgetPrior = { ...blank, id: "1", enabled: false, members: [1, 2, 3], revision: 4, stamp: "s", size: 5 };

describe("typed equality", () => {
  it("compares sets as sets, lists in order, numbers as numbers", () => {
    expect(typedEqual(["set", "number"], [1, 2, 3], [3, 1, 2])).toBe(true);
    expect(typedEqual(["set", "number"], [1, 2, 3], [1, 2])).toBe(false);
    expect(typedEqual(["list", "number"], [1, 2], [2, 1])).toBe(false);
    expect(typedEqual("number", 5, 5n)).toBe(true);
    expect(typedEqual("number", 5.5, 5n)).toBe(false);
    expect(typedEqual(["set", ["object", { a: "string" }]], [{ a: "x" }, { a: "y" }], [{ a: "y" }, { a: "x" }])).toBe(true);
  });

  it("compares objects and maps structurally and never equates unknown with a known value", () => {
    const t = ["object", { a: ["list", "number"], b: ["map", "string"] }] as const;
    expect(typedEqual(t, { a: [1], b: { k: "v" } }, { a: [1], b: { k: "v" } })).toBe(true);
    expect(typedEqual(t, { a: [1], b: { k: "v" } }, { a: [1], b: { k: "w" } })).toBe(false);
    expect(typedEqual(t, { a: null, b: null }, { b: null })).toBe(true);
    expect(typedEqual("string", Unknown, "x")).toBe(false);
    expect(typedEqual(["list", "string"], ["x"], [Unknown])).toBe(false);
    expect(typedEqual("string", null, "")).toBe(false);
  });
});

describe("validation from declarations", () => {
  it("names the attribute and the reason, and skips unknown and null values", () => {
    expect(validateAttributes(widget.attributes, { ...blank, name: "long" })).toEqual([
      { severity: "error", summary: "Invalid name", detail: "name: must be at most 3 characters", attribute: [{ attribute: "name" }] },
    ]);
    expect(validateAttributes(widget.attributes, { ...blank, name: Unknown })).toEqual([]);
    expect(validateAttributes(widget.attributes, { ...blank, size: 2.5 })[0]).toMatchObject({
      attribute: [{ attribute: "size" }],
      detail: "size: must be a whole number; got 2.5",
    });
  });

  it("reports a conflict once, whichever side declares it", () => {
    const diags = validateAttributes(widget.attributes, { ...blank, one: "x", two: "y" });
    expect(diags).toEqual([expect.objectContaining({ summary: "Conflicting attributes", detail: "one and two cannot both be set; choose one." })]);
    expect(validateAttributes(widget.attributes, { ...blank, one: "x", two: Unknown })).toHaveLength(1);
  });

  it("validates the attributes of nested input objects", () => {
    const attributes = {
      rule: object("optional", "A rule.", { port: int("required", "Port.") }),
      ids: list("optional", "Ids.", object("optional", "", { n: int("required", "n") })),
    };
    expect(validateAttributes(attributes, { rule: { port: 1.5 }, ids: null })[0]).toMatchObject({
      attribute: [{ attribute: "rule" }, { attribute: "port" }],
      summary: "Invalid rule.port",
    });
    expect(validateAttributes(attributes, { rule: null, ids: [{ n: 1 }, { n: 0.5 }] })[0]).toMatchObject({
      attribute: [{ attribute: "ids" }, { index: 1 }, { attribute: "n" }],
    });
  });
});

describe("plan rules", () => {
  it("marks computed attributes unknown on create, applies defaults, keeps configured ones", () => {
    const { plannedState, requiresReplace } = plan(widget, null, blank);
    expect(plannedState).toEqual({ ...blank, id: Unknown, enabled: false, revision: Unknown, stamp: Unknown });
    expect(requiresReplace).toEqual([]);
  });

  it("on update leaves changing computed values unknown, keeps keepPrior ones", () => {
    const config = { ...blank, members: [1, 2, 3], size: 5, name: "xyz" };
    const proposed = { ...config, id: "1", enabled: false, revision: 4, stamp: "s" };
    expect(plan(widget, widgetPrior, config, proposed).plannedState).toEqual({ ...proposed, revision: Unknown });
  });

  it("plans nothing at all when nothing changed (a reordered set is no change)", () => {
    const config = { ...blank, members: [3, 2, 1], size: 5 };
    const proposed = { ...config, id: "1", enabled: false, revision: 4, stamp: "s" };
    const { plannedState, requiresReplace } = plan(widget, widgetPrior, config, proposed);
    expect(plannedState).toEqual(proposed);
    expect(requiresReplace).toEqual([]);
  });

  it("asks for replacement on a real set change and by a conditional rule", () => {
    const proposed = (c: ObjectValue) => ({ ...c, id: "1", enabled: false, revision: 4, stamp: "s" });
    const grown = { ...blank, members: [1, 2, 3, 4], size: 5 };
    expect(plan(widget, widgetPrior, grown, proposed(grown)).requiresReplace).toEqual([[{ attribute: "members" }]]);
    const bigger = { ...blank, members: [1, 2, 3], size: 6 };
    expect(plan(widget, widgetPrior, bigger, proposed(bigger)).requiresReplace).toEqual([]);
    const smaller = { ...blank, members: [1, 2, 3], size: 4 };
    expect(plan(widget, widgetPrior, smaller, proposed(smaller)).requiresReplace).toEqual([[{ attribute: "size" }]]);
  });

  it("runs the resource's plan hook with the clock, which may force a replacement", () => {
    const hooked: ResourceDefinition<unknown> = {
      ...widget,
      modifyPlan: (d) => {
        if (d.now.getTime() >= NOW.getTime()) {
          d.planned.stamp = Unknown;
          d.replace("stamp");
          d.warn("rotating");
        }
      },
    };
    const config = { ...blank, members: [1, 2, 3], size: 5 };
    const proposed = { ...config, id: "1", enabled: false, revision: 4, stamp: "s" };
    const result = plan(hooked, widgetPrior, config, proposed);
    expect(result.requiresReplace).toEqual([[{ attribute: "stamp" }]]);
    expect(result.plannedState!.stamp).toBe(Unknown);
    expect(result.diagnostics).toEqual([{ severity: "warning", summary: "rotating" }]);
  });

  it("keeps the prior form of a semantically equal value (the same key, another comment)", () => {
    const config = { id: null, label: "laptop", ssh_key: SAME_KEY_OTHER_COMMENT, created: null };
    const { plannedState, requiresReplace } = plan(def, prior, config, { ...config, id: prior.id, created: prior.created });
    expect(plannedState).toEqual(prior);
    expect(requiresReplace).toEqual([]);
  });

  it("requires replacement when the key itself changes, or is unknown", () => {
    for (const ssh_key of [OTHER_KEY, Unknown] as TfValue[]) {
      const config: ObjectValue = { id: null, label: "laptop", ssh_key, created: null };
      const { plannedState, requiresReplace } = plan(def, prior, config, { ...config, id: prior.id, created: prior.created });
      expect(plannedState?.ssh_key).toBe(ssh_key);
      expect(requiresReplace).toEqual([[{ attribute: "ssh_key" }]]);
    }
  });

  it("plans null for a destroy", () => {
    expect(planChange(def, prior, null, null, NOW)).toEqual({ plannedState: null, requiresReplace: [], diagnostics: [] });
  });
});

describe("settling results", () => {
  it("fills unknowns from the API and keeps planned known values", () => {
    const planned: ObjectValue = { id: Unknown, label: "laptop", ssh_key: SAME_KEY_OTHER_COMMENT, created: Unknown };
    const fromApi = { id: "9", label: "laptop", ssh_key: KEY, created: "2026-11-21T07:00:00Z" };
    expect(settleApplied(planned, fromApi)).toEqual({ ...fromApi, ssh_key: SAME_KEY_OTHER_COMMENT });
  });

  it("leaves nothing unknown in the state of a partly failed apply", () => {
    expect(settleApplied({ id: Unknown, url: Unknown, label: "x" }, { id: "1" }, true)).toEqual({ id: "1", url: null, label: "x" });
  });

  it("keeps the state's form of an equivalent value on read but shows real drift", () => {
    const state = { ...prior, ssh_key: SAME_KEY_OTHER_COMMENT };
    expect(settleRead(def.attributes, state, prior).ssh_key).toBe(SAME_KEY_OTHER_COMMENT);
    expect(settleRead(def.attributes, state, { ...prior, ssh_key: OTHER_KEY, label: "renamed" })).toMatchObject({ ssh_key: OTHER_KEY, label: "renamed" });
  });

  it("keeps the state's order of a set the API returns reordered", () => {
    expect(settleRead(widget.attributes, widgetPrior, { ...widgetPrior, members: [3, 2, 1] }).members).toEqual([1, 2, 3]);
    expect(settleRead(widget.attributes, widgetPrior, { ...widgetPrior, members: [3, 2] }).members).toEqual([3, 2]);
  });
});

describe("schemas from declarations", () => {
  it("derives modes, sensitivity and descriptions that state the rules", () => {
    const s = schemaOf("W", { ...widget.attributes, secret: string("computed", "Secret.", { sensitive: true }) });
    expect(s.block.attributes).toMatchObject({
      id: { type: "string", computed: true },
      name: { type: "string", required: true },
      enabled: { type: "bool", optional: true, computed: true, description: "Enabled. Defaults to `false`." },
      members: { type: ["set", "number"], optional: true, description: "Members. Changing it replaces the object." },
      one: { description: "Conflicts with two. Conflicts with `two`." },
      secret: { sensitive: true, computed: true },
    });
    expect(s.block.attributes!.name).not.toHaveProperty("optional");
  });

  it("declares a list block as a nested block whose attributes may be optional, and validates inside it", () => {
    const attributes = { rule: listBlock("Rules.", { port: int("required", "Port."), note: string("optional", "Note.") }, { maxItems: 3 }) };
    expect(schemaOf("B", attributes).block).toMatchObject({
      attributes: {},
      block_types: { rule: { nesting_mode: "list", max_items: 3, block: { attributes: { port: { required: true }, note: { optional: true } } } } },
    });
    expect(
      validateAttributes(attributes, {
        rule: [
          { port: 80, note: null },
          { port: 1.5, note: null },
        ],
      })[0],
    ).toMatchObject({ attribute: [{ attribute: "rule" }, { index: 1 }, { attribute: "port" }] });
    expect(validateAttributes(attributes, { rule: [] })).toEqual([]);
  });

  it("refuses declarations that cannot be right", () => {
    expect(() => string("required", "x", { default: "a" })).toThrow(/optional_computed/);
    expect(() => string("optional", "x", { keepPrior: true })).toThrow(/computed attributes only/);
  });
});

describe("mgmt_ssh_key validation", () => {
  const validate = (config: Record<string, unknown>) =>
    validateAttributes(def.attributes, { id: null, created: null, label: "k", ssh_key: KEY, ...config } as ObjectValue);

  it("accepts a valid config and skips unknown values", () => {
    expect(validate({})).toEqual([]);
    expect(validate({ label: Unknown, ssh_key: Unknown })).toEqual([]);
  });

  it("refuses an empty or too long label, naming the attribute", () => {
    for (const label of ["", "x".repeat(65)]) expect(validate({ label })[0]).toMatchObject({ severity: "error", attribute: [{ attribute: "label" }] });
    expect(validate({ label: "x".repeat(64) })).toEqual([]);
  });

  it("refuses a key whose algorithm does not match its data", () => {
    const [d] = validate({ ssh_key: KEY.replace("ssh-ed25519", "ssh-rsa") });
    expect(d).toMatchObject({ severity: "error", attribute: [{ attribute: "ssh_key" }] });
    expect(d!.detail).toMatch(/does not match/);
  });
});

describe("deprecated attributes", () => {
  const attributes = {
    old: string("optional", "The old way.", { deprecated: { message: "Use new instead.", removedIn: "1.0.0" } }),
    new: string("optional", "The new way."),
  };

  it("are flagged in the schema, with the note first in the description the docs and bindings show", () => {
    expect(schemaOf("x", attributes).block.attributes!.old).toMatchObject({
      deprecated: true,
      description: "Deprecated: Use new instead. It is removed in release 1.0.0. The old way.",
    });
    expect(schemaOf("x", attributes).block.attributes!.new).not.toHaveProperty("deprecated");
  });

  it("warn where set, unknown values included, and only there", () => {
    expect(validateAttributes(attributes, { old: null, new: "x" })).toEqual([]);
    for (const old of ["x", Unknown] as const) {
      expect(validateAttributes(attributes, { old, new: null })).toEqual([
        {
          severity: "warning",
          summary: "Deprecated attribute old",
          detail: "Deprecated: Use new instead. It is removed in release 1.0.0.",
          attribute: [{ attribute: "old" }],
        },
      ]);
    }
  });
});
