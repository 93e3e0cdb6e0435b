/** A token rotation in the comment and the JSON summary: named as a rotation, with why now, never as unknown values. */
import { planReportJson } from "../../src/report/json";
import { renderMarkdown } from "../../src/report/markdown";
import { parsePlan, type ResourceChange } from "../../src/report/plan-model";
import { rotationOf } from "../../src/report/rotation";
import { summarize } from "../../src/report/summary";

const before = {
  id: "5",
  label: "ci",
  scopes: "account:read_only",
  expiry: "2026-12-05T10:00:00Z",
  expires_in: "2160h",
  renew_before: "168h",
  token: "secret",
  created: "2026-09-06T10:00:00Z",
};
const rotating: ResourceChange = {
  address: "mgmt_token.ci",
  type: "mgmt_token",
  change: {
    actions: ["update"],
    before,
    after: { ...before, id: null, token: null, expiry: null, created: null },
    after_unknown: { id: true, token: true, expiry: true, created: true },
    before_sensitive: { token: true },
    after_sensitive: { token: true },
  },
};

describe("token rotation in the report", () => {
  it("recognises a rotation by the id going unknown in an update, and says why now", () => {
    expect(rotationOf(rotating)).toBe("expires 2026-12-05, inside renew_before 168h");
    // A label change keeps the id: no rotation.
    expect(rotationOf({ ...rotating, change: { ...rotating.change, after_unknown: {} } })).toBeUndefined();
    expect(rotationOf({ ...rotating, type: "mgmt_ssh_key" })).toBeUndefined();
    expect(rotationOf({ ...rotating, change: { ...rotating.change, actions: ["delete", "create"] } })).toBeUndefined();
  });

  it("the comment and the JSON summary carry it; no value appears", () => {
    const s = summarize(parsePlan({ format_version: "1.2", resource_changes: [rotating] }));
    const md = renderMarkdown(s);
    expect(md).toContain("rotating `mgmt_token.ci`: expires 2026-12-05, inside renew\\_before 168h; the new token is created before the old one is revoked");
    expect(md).not.toContain("secret");
    expect(planReportJson(s).changes).toEqual([
      expect.objectContaining({ address: "mgmt_token.ci", actions: ["update"], rotation: "expires 2026-12-05, inside renew_before 168h" }),
    ]);
  });
});
