/** @tier unit */
/** Masking: no sensitive leaf survives, wherever it sits and however the marker tree is shaped. */
import { attributeDiffs } from "../../src/report/diff";
import { planReportJson } from "../../src/report/json";
import { renderMarkdown } from "../../src/report/markdown";
import { formatPath, leaves, SENSITIVE, shownValue, UNKNOWN } from "../../src/report/mask";
import { parsePlan } from "../../src/report/plan-model";
import { summarize } from "../../src/report/summary";
import { fit } from "../../src/report/truncate";
import { detailedEntries, lineCount } from "../../src/report/markdown";
import { plan, rc } from "./plans";

const S = "s3cr3t-VALUE-9f2c";

describe("leaves", () => {
  it("masks a leaf marked in the sensitive tree and keeps the others", () => {
    expect(leaves({ label: S, id: "1" }, { label: true }).map((l) => [formatPath(l.path), l.shown])).toEqual([
      ["id", '"1"'],
      ["label", SENSITIVE],
    ]);
  });

  it("masks values nested in lists and maps, and whole subtrees", () => {
    const value = { list: ["open", S], map: { a: "open", b: S }, whole: { deep: [S, { x: S }] } };
    const marks = { list: [false, true], map: { b: true }, whole: true };
    const shown = leaves(value, marks);
    expect(shown.map((l) => [formatPath(l.path), l.shown])).toEqual([
      ["list[0]", '"open"'],
      ["list[1]", SENSITIVE],
      ["map.a", '"open"'],
      ["map.b", SENSITIVE],
      ["whole", SENSITIVE],
    ]);
    expect(JSON.stringify(shown.map((l) => l.shown))).not.toContain(S);
  });

  it("hides a scalar when the marker tree has marks below it (shapes disagree)", () => {
    expect(leaves({ a: S }, { a: { x: true } })[0]!.shown).toBe(SENSITIVE);
    expect(leaves(S, [true])[0]!.shown).toBe(SENSITIVE);
  });

  it("shows unknown leaves, including ones absent from the value", () => {
    expect(leaves({ label: "x" }, {}, { id: true, tags: [false, true] }).map((l) => [formatPath(l.path), l.shown])).toEqual([
      ["label", '"x"'],
      ["id", UNKNOWN],
      ["tags", UNKNOWN],
    ]);
    expect(leaves({ tags: ["a"] }, {}, { tags: [false, true] }).map((l) => [formatPath(l.path), l.shown])).toEqual([
      ["tags[0]", '"a"'],
      ["tags[1]", UNKNOWN],
    ]);
  });

  it("formats paths the way HCL reads them", () => {
    expect(formatPath(["tags", 0])).toBe("tags[0]");
    expect(formatPath(["settings", "name"])).toBe("settings.name");
    expect(formatPath(["labels", "a b"])).toBe('labels["a b"]');
    expect(formatPath([])).toBe("(value)");
  });

  it("shows a whole output as (sensitive) when any part of it is", () => {
    expect(shownValue({ a: [S] }, true)).toBe(SENSITIVE);
    expect(shownValue({ a: [S, "x"] }, { a: [true, false] })).toBe(SENSITIVE);
    expect(shownValue(["x", null], false, [false, true])).toBe("(partly known after apply)");
    expect(shownValue("x", false, true)).toBe(UNKNOWN);
    expect(shownValue({ a: 1 }, false)).toBe('{"a":1}');
  });
});

describe("attributeDiffs", () => {
  it("tells that a sensitive value changed without showing either side", () => {
    const diffs = attributeDiffs({
      actions: ["update"],
      before: { t: S, n: 1 },
      after: { t: `${S}-2`, n: 1 },
      before_sensitive: { t: true },
      after_sensitive: { t: true },
      after_unknown: {},
    });
    expect(diffs).toEqual([{ path: ["t"], name: "t", before: SENSITIVE, after: SENSITIVE, forcesReplacement: false }]);
    const same = attributeDiffs({ actions: ["update"], before: { t: S }, after: { t: S }, before_sensitive: { t: true }, after_sensitive: { t: true } });
    expect(same).toEqual([]);
  });

  it("marks the attributes replace_paths name, nested ones included", () => {
    const diffs = attributeDiffs({
      actions: ["delete", "create"],
      before: { k: "a", l: "x", s: { v: 1 } },
      after: { k: "b", l: "y", s: { v: 2 } },
      replace_paths: [["k"], ["s"]],
    });
    expect(diffs.map((d) => [d.name, d.forcesReplacement])).toEqual([
      ["k", true],
      ["l", false],
      ["s.v", true],
    ]);
  });

  it("lists a create's set values, skipping nulls, and a delete's old values", () => {
    expect(
      attributeDiffs({ actions: ["create"], before: null, after: { a: "x", b: null }, after_unknown: { id: true } }).map((d) => [d.name, d.before, d.after]),
    ).toEqual([
      ["a", undefined, '"x"'],
      ["id", undefined, UNKNOWN],
    ]);
    expect(attributeDiffs({ actions: ["delete"], before: { a: "x", b: null }, after: null }).map((d) => [d.name, d.before, d.after])).toEqual([
      ["a", '"x"', undefined],
    ]);
  });
});

describe("no secret reaches any report", () => {
  const secretPlan = parsePlan(
    plan({
      variables: { token: { value: S } },
      planned_values: { root_module: { resources: [{ values: { secret: S } }] } },
      resource_changes: [
        rc("mgmt_token.ci", ["create"], {
          after: { label: "ci", token: null, meta: { list: ["a", S], map: { k: S } } },
          afterSensitive: { token: true, meta: { list: [false, true], map: { k: true } } },
          afterUnknown: { token: true, id: true },
        }),
        rc("mgmt_oauth_client.app", ["update"], {
          before: { label: "a", secret: S, extra: [{ v: S }] },
          after: { label: "b", secret: S, extra: [{ v: `${S}!` }] },
          beforeSensitive: { secret: true, extra: [{ v: true }] },
          afterSensitive: { secret: true, extra: true },
        }),
        rc("mgmt_token.old", ["delete", "create"], {
          before: { label: S, token: S },
          after: { label: "new", token: null },
          beforeSensitive: { label: true, token: true },
          afterSensitive: { token: true },
          afterUnknown: { token: true },
          replacePaths: [["label"]],
        }),
        rc("mgmt_token.gone", ["delete"], { before: { label: "gone", token: S }, beforeSensitive: { token: true } }),
      ],
      resource_drift: [
        rc("mgmt_oauth_client.app", ["update"], {
          before: { label: "a", secret: S },
          after: { label: "z", secret: `${S}?` },
          beforeSensitive: { secret: true },
          afterSensitive: { secret: true },
        }),
      ],
      relevant_attributes: [{ resource: "mgmt_oauth_client.app", attribute: ["secret"] }],
      output_changes: {
        whole: { actions: ["create"], before: null, after: { deep: [S] }, after_unknown: false, before_sensitive: false, after_sensitive: true },
        part: { actions: ["update"], before: ["x", S], after: ["y", S], after_unknown: false, before_sensitive: [false, true], after_sensitive: [false, true] },
      },
    }),
  );

  it("masks in markdown, shortened markdown and JSON", () => {
    const s = summarize(secretPlan);
    const md = renderMarkdown(s);
    expect(md).toContain("mgmt_token.ci");
    expect(md).toContain("`meta.list[1]`: `(sensitive)`");
    expect(md).toContain("`meta.map.k`: `(sensitive)`");
    expect(md).toContain("`secret`: `(sensitive)` → `(sensitive)`");
    expect(md).toContain("`whole`: `(sensitive)` (new)");
    const short = fit((b, n) => renderMarkdown(s, b, {}, n), detailedEntries(s), lineCount(s), 600).text;
    for (const text of [md, short, JSON.stringify(planReportJson(s))]) expect(text).not.toContain(S);
  });
});
