/** @tier cli */
/** Planned changes that only set back drift: recorded engine plans and hand-built edge cases. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { planReportJson } from "../../src/report/json";
import { REVERT_NOTE } from "../../src/report/md";
import { renderMarkdown } from "../../src/report/markdown";
import { parsePlan, parsePlanJson } from "../../src/report/plan-model";
import { revertsDrift, sameValue } from "../../src/report/revert";
import { summarize } from "../../src/report/summary";
import { folds } from "./run-mgmt";
import { key, plan, rc } from "./plans";

const marked = (lines: string | undefined) => (lines ?? "").split("\n").filter((l) => l.endsWith(`(${REVERT_NOTE})`));

describe.each(["tofu", "terraform"])("a %s plan recorded after labels were changed through the API", (engine) => {
  // The pull request changes the client's redirect_uri; both labels were edited through the API.
  const text = readFileSync(join(__dirname, "fixtures", `revert-${engine}.json`), "utf8");
  const s = summarize(parsePlanJson(text));

  it("marks the label lines as drift set back, and not the pull request's own change", () => {
    const byAddress = Object.fromEntries(s.groups.update.map((e) => [e.address, e.attributes.map((a) => [a.name, a.revertsDrift === true])]));
    expect(byAddress).toEqual({
      "mgmt_oauth_client.app": [
        ["label", true],
        ["redirect_uri", false],
      ],
      "mgmt_ssh_key.deploy": [["label", true]],
    });
    const md = renderMarkdown(s);
    expect(marked(folds(md)["Update in place"])).toEqual([
      `  - \`label\`: \`"ci-app-oob"\` → \`"ci-app"\` (${REVERT_NOTE})`,
      `  - \`label\`: \`"ci-deploy-oob"\` → \`"ci-deploy"\` (${REVERT_NOTE})`,
    ]);
    expect(md).not.toContain("recorded-oauth-secret");
  });

  it("counts the drift although the plan lists no relevant_attributes", () => {
    expect(JSON.parse(text)).not.toHaveProperty("relevant_attributes");
    expect(s.counts).toMatchObject({ change: 2, drift: 2 });
    expect(renderMarkdown(s).split("\n")[2]).toBe("**0 to add, 2 to change, 0 to replace, 0 to destroy, 0 to import** · 2 changed outside of Terraform");
    const j = planReportJson(s);
    expect(j.summary.drift).toBe(2);
    expect(j.changes.map((c) => [c.address, c.attributes, c.reverts_drift])).toEqual([
      ["mgmt_oauth_client.app", ["label", "redirect_uri"], ["label"]],
      ["mgmt_ssh_key.deploy", ["label"], ["label"]],
    ]);
  });
});

describe("telling drift set back from a planned change", () => {
  const drifted = (actions: string[], planned: { before: unknown; after: unknown; afterUnknown?: unknown }, extra: Record<string, unknown> = {}) =>
    summarize(
      parsePlan(
        plan({
          resource_changes: [rc("mgmt_ssh_key.k", actions, { before: planned.before, after: planned.after, afterUnknown: planned.afterUnknown })],
          resource_drift: [rc("mgmt_ssh_key.k", ["update"], { before: key(1, "mine"), after: key(1, "theirs") })],
          ...extra,
        }),
      ),
    );

  it("marks a change from the live value back to the state's", () => {
    const s = drifted(["update"], { before: key(1, "theirs"), after: key(1, "mine") });
    expect(s.groups.update[0]!.attributes).toEqual([expect.objectContaining({ name: "label", revertsDrift: true })]);
    expect(s.drift.map((e) => e.address)).toEqual(["mgmt_ssh_key.k"]);
  });

  it("does not mark a change to a third value: the pull request changes what was drifted", () => {
    const s = drifted(["update"], { before: key(1, "theirs"), after: key(1, "new") });
    expect(s.groups.update[0]!.attributes[0]).not.toHaveProperty("revertsDrift");
    // Not relevant and not set back: filtered from the drift section as the engines do.
    expect(s.counts.drift).toBe(0);
    expect(renderMarkdown(s)).not.toContain(REVERT_NOTE);
    expect(planReportJson(s).changes[0]).not.toHaveProperty("reverts_drift");
  });

  it("does not mark a value known only after apply", () => {
    const s = drifted(["update"], { before: key(1, "theirs"), after: { ...key(1, "x"), label: undefined }, afterUnknown: { label: true } });
    expect(s.groups.update[0]!.attributes.find((a) => a.name === "label")).not.toHaveProperty("revertsDrift");
  });

  it("marks only the parts of an attribute the drift touched, and names an attribute in reverts_drift only when all of it is set back", () => {
    const s = summarize(
      parsePlan(
        plan({
          resource_changes: [rc("mgmt_tag.t", ["update"], { before: { id: "t", ids: [1, 9], label: "b" }, after: { id: "t", ids: [1, 2], label: "c" } })],
          resource_drift: [rc("mgmt_tag.t", ["update"], { before: { id: "t", ids: [1, 2], label: "a" }, after: { id: "t", ids: [1, 9], label: "b" } })],
        }),
      ),
    );
    expect(s.groups.update[0]!.attributes.map((a) => [a.name, a.revertsDrift === true])).toEqual([
      ["ids[1]", true],
      ["label", false],
    ]);
    expect(planReportJson(s).changes[0]).toMatchObject({ attributes: ["ids", "label"], reverts_drift: ["ids"] });
    expect(folds(renderMarkdown(s))["Changed outside of Terraform"]).toContain("`ids[1]`: `2` → `9`");
    expect(folds(renderMarkdown(s))["Changed outside of Terraform"]).not.toContain("`label`");
  });

  it("counts an object once in the drift figure when relevant_attributes names it too", () => {
    const s = drifted(
      ["update"],
      { before: key(1, "theirs"), after: key(1, "mine") },
      { relevant_attributes: [{ resource: "mgmt_ssh_key.k", attribute: ["label"] }] },
    );
    expect(s.counts.drift).toBe(1);
  });

  it("leaves a deposed object's change alone", () => {
    const s = summarize(
      parsePlan(
        plan({
          resource_changes: [rc("mgmt_ssh_key.k", ["delete"], { before: key(1, "theirs"), deposed: "d1" })],
          resource_drift: [rc("mgmt_ssh_key.k", ["update"], { before: key(1, "mine"), after: key(1, "theirs") })],
        }),
      ),
    );
    expect(s.groups.delete[0]!.attributes.some((a) => a.revertsDrift)).toBe(false);
  });

  it("compares values structurally, null and absent alike", () => {
    expect(sameValue({ a: [1, { b: null }] }, { a: [1, {}] })).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue("1", 1)).toBe(false);
    expect(
      revertsDrift({ actions: ["update"], before: { l: "x" }, after: { l: "x" } }, { actions: ["update"], before: { l: "x" }, after: { l: "x" } }, ["l"]),
    ).toBe(false);
  });
});
