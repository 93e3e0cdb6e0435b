/** @tier unit */
/** Reading a plan's subjects: planned values, unknowns decided by the configuration, sensitivity, what is skipped. */
import { parsePlan } from "../../src/report/plan-model";
import { planSubjects, withoutInstanceKeys } from "../../src/policy/plan-subjects";
import { UNKNOWN } from "../../src/policy/rules";

const change = (address: string, type: string, actions: string[], after: unknown, extra: Record<string, unknown> = {}) => ({
  address,
  mode: "managed",
  type,
  change: { actions, before: null, after, after_unknown: {}, after_sensitive: {}, ...extra },
});

const RAW = {
  format_version: "1.2",
  resource_changes: [
    change(
      'module.team["a"].mgmt_token.t[0]',
      "mgmt_token",
      ["create"],
      { label: "x", expires_in: null },
      { after_unknown: { scopes: true, expiry: true, id: true } },
    ),
    change("mgmt_token.from_var", "mgmt_token", ["create"], { label: "x", expires_in: null }, { after_unknown: { scopes: true, expiry: true } }),
    change("mgmt_token.orphan", "mgmt_token", ["create"], { label: "x" }, { after_unknown: { scopes: true } }),
    change(
      "mgmt_oauth_client.c",
      "mgmt_oauth_client",
      ["update"],
      { label: "s", redirect_uri: "https://a/b", public: false },
      { after_sensitive: { label: true } },
    ),
    change("mgmt_ssh_key.gone", "mgmt_ssh_key", ["delete"], null),
    change("mgmt_tag.t", "mgmt_tag", ["create"], { label: "x" }),
    { ...change("mgmt_ssh_key.d", "mgmt_ssh_key", ["create"], { ssh_key: "k" }), mode: "data" },
  ],
  configuration: {
    root_module: {
      resources: [
        {
          address: "mgmt_token.from_var",
          expressions: { label: { constant_value: "x" }, scopes: { references: ["var.s"] }, expiry: { references: ["var.e"] } },
        },
      ],
      module_calls: { team: { module: { resources: [{ address: "mgmt_token.t", expressions: { label: { constant_value: "x" } } }] } } },
    },
  },
};

describe("planSubjects", () => {
  const subjects = planSubjects(parsePlan(RAW), RAW);
  const byAddress = Object.fromEntries(subjects.map((s) => [s.address, s]));

  it("keeps the rules' resource types the plan keeps; skips deletes, data sources and other types", () => {
    expect(subjects.map((s) => s.address)).toEqual(['module.team["a"].mgmt_token.t[0]', "mgmt_token.from_var", "mgmt_token.orphan", "mgmt_oauth_client.c"]);
  });

  it("an unknown optional attribute the configuration does not set is not set; one it sets from an unknown stays unknown", () => {
    expect(byAddress['module.team["a"].mgmt_token.t[0]']!.values).toMatchObject({ scopes: null, expiry: null, id: UNKNOWN });
    expect(byAddress["mgmt_token.from_var"]!.values).toMatchObject({ scopes: UNKNOWN, expiry: UNKNOWN });
    // Without the configuration the plan cannot tell.
    expect(byAddress["mgmt_token.orphan"]!.values).toMatchObject({ scopes: UNKNOWN });
  });

  it("carries which values are sensitive", () => {
    expect([...byAddress["mgmt_oauth_client.c"]!.sensitive]).toEqual(["label"]);
  });

  it("strips instance keys, quoted ones with brackets inside too", () => {
    expect(withoutInstanceKeys('module.a["x]y"].module.b[3].mgmt_token.t["k"]')).toBe("module.a.module.b.mgmt_token.t");
  });
});
