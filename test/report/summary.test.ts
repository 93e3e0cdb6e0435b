/** @tier cli */
/** The plan model, grouping, drift filtering, the renderers and truncation, on hand-built plans. */
import { planReportJson } from "../../src/report/json";
import { code } from "../../src/report/md";
import { detailedEntries, lineCount, renderMarkdown } from "../../src/report/markdown";
import { parsePlan, parsePlanJson, PlanFormatError, priorStateResources } from "../../src/report/plan-model";
import { summarize } from "../../src/report/summary";
import { cutAtLines, cutNote, fit, tooLong } from "../../src/report/truncate";
import { folds } from "./run-mgmt";
import { key, plan, rc } from "./plans";

const addresses = (md: string, heading: string) => [...(folds(md)[heading] ?? "").matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]);

describe("parsePlanJson", () => {
  it.each([
    ["", /the input is empty/],
    ["{not json", /not JSON/],
    ["[1]", /must be an object/],
    ['{"resource_changes": []}', /no format_version/],
    ['{"format_version": "2.0", "resource_changes": []}', /unsupported plan format_version "2.0": this reads format 1.x/],
    ['{"format_version": "1.0", "values": {"root_module": {}}}', /state JSON .* not a plan/],
    ['{"format_version": "1.2", "resource_changes": [{"address": 1}]}', /at resource_changes\.0\.address/],
  ])("refuses %j with a message naming the problem", (text, message) => {
    expect(() => parsePlanJson(text)).toThrow(PlanFormatError);
    expect(() => parsePlanJson(text)).toThrow(message);
  });

  it("reads any 1.x format and ignores fields it does not know", () => {
    for (const v of ["1.0", "1.1", "1.2", "1.9"]) {
      const p = parsePlan({ ...plan({ format_version: v }), checks: [{}], deferred_changes: [], complete: true, future_field: { x: 1 } });
      expect(p.format_version).toBe(v);
    }
  });

  it("collects prior-state resources from child modules, managed only", () => {
    const p = parsePlan(
      plan({
        prior_state: {
          values: {
            root_module: {
              resources: [
                { address: "mgmt_ssh_key.a", mode: "managed", type: "mgmt_ssh_key", values: { id: "1" } },
                { address: "data.mgmt_profile.me", mode: "data", type: "mgmt_profile", values: {} },
              ],
              child_modules: [{ resources: [{ address: "module.m.mgmt_tag.t", mode: "managed", type: "mgmt_tag", values: { id: "web" } }] }],
            },
          },
        },
      }),
    );
    expect(priorStateResources(p).map((r) => r.address)).toEqual(["mgmt_ssh_key.a", "module.m.mgmt_tag.t"]);
  });
});

describe("summarize and render", () => {
  const mixed = plan({
    resource_changes: [
      rc("mgmt_ssh_key.new", ["create"], { after: { label: "n" }, afterUnknown: { id: true } }),
      rc("mgmt_ssh_key.upd", ["update"], { before: key(1, "a"), after: key(1, "b") }),
      rc("mgmt_ssh_key.rep", ["delete", "create"], {
        before: key(2, "r"),
        after: { label: "r", ssh_key: "other" },
        afterUnknown: { id: true, created: true },
        replacePaths: [["ssh_key"]],
        actionReason: "replace_because_cannot_update",
      }),
      rc("mgmt_ssh_key.rep2", ["create", "delete"], { before: key(3, "r2"), after: { label: "r2" } }),
      rc("mgmt_ssh_key.del", ["delete"], { before: key(4, "d"), actionReason: "delete_because_no_resource_config" }),
      rc("mgmt_ssh_key.old", ["delete"], { before: key(5, "o"), deposed: "abcd1234" }),
      rc("mgmt_ssh_key.imp", ["no-op"], { before: key(6, "i"), after: key(6, "i"), importing: { id: "6" } }),
      rc("mgmt_ssh_key.impupd", ["update"], { before: key(7, "i"), after: key(7, "j"), importing: { id: "7" } }),
      rc("mgmt_ssh_key.moved", ["no-op"], { before: key(8, "m"), after: key(8, "m"), previousAddress: "mgmt_ssh_key.was" }),
      rc("mgmt_ssh_key.forgot", ["forget"], { before: key(9, "f") }),
      rc("mgmt_ssh_key.same", ["no-op"], { before: key(10, "s"), after: key(10, "s") }),
      rc("data.mgmt_profile.me", ["read"], { mode: "data", after: {} }),
    ],
    resource_drift: [
      rc("mgmt_ssh_key.upd", ["update"], { before: key(1, "x"), after: { ...key(1, "a"), created: "2030-01-01T00:00:00Z" } }),
      rc("mgmt_ssh_key.noise", ["update"], { before: key(11, "p"), after: key(11, "q") }),
      rc("mgmt_ssh_key.vanished", ["delete"], { before: key(12, "v") }),
    ],
    relevant_attributes: [{ resource: "mgmt_ssh_key.upd", attribute: ["label"] }],
    output_changes: {
      n: { actions: ["update"], before: 1, after: 2, after_unknown: false, before_sensitive: false, after_sensitive: false },
      same: { actions: ["no-op"], before: 1, after: 1 },
      fresh: { actions: ["create"], before: null, after: null, after_unknown: true },
      gone: { actions: ["delete"], before: "x", after: null },
    },
  });

  it("groups every change under its heading and counts them", () => {
    const s = summarize(parsePlan(mixed));
    expect(s.counts).toEqual({ add: 1, change: 2, replace: 2, destroy: 2, import: 2, move: 1, forget: 1, drift: 2 });
    expect(s.hasDestroy).toBe(true);
    const md = renderMarkdown(s);
    expect(md.split("\n")[2]).toBe(
      "**1 to add, 2 to change, 2 to replace, 2 to destroy, 2 to import, 1 to move, 1 to forget** · 2 changed outside of Terraform",
    );
    expect(addresses(md, "Create")).toEqual(["mgmt_ssh_key.new"]);
    expect(addresses(md, "Update in place")).toEqual(["mgmt_ssh_key.upd", "mgmt_ssh_key.impupd"]);
    expect(addresses(md, "Replace")).toEqual(["mgmt_ssh_key.rep", "mgmt_ssh_key.rep2"]);
    expect(addresses(md, "Destroy")).toEqual(["mgmt_ssh_key.del", "mgmt_ssh_key.old"]);
    expect(addresses(md, "Import")).toEqual(["mgmt_ssh_key.imp", "mgmt_ssh_key.impupd"]);
    expect(addresses(md, "Move")).toEqual(["mgmt_ssh_key.moved"]);
    expect(addresses(md, "Forget (removed from state, not destroyed)")).toEqual(["mgmt_ssh_key.forgot"]);
    expect(md).toContain("- `mgmt_ssh_key.rep` (because an attribute that cannot change in place changed)");
    expect(md).toContain("- `mgmt_ssh_key.old` (deposed object `abcd1234`)");
    expect(md).toContain("- `mgmt_ssh_key.moved` (moved from `mgmt_ssh_key.was`)");
    expect(md).toContain("- `mgmt_ssh_key.imp` (imported from id `6`)");
    expect(md).not.toContain("mgmt_ssh_key.same");
    expect(md).not.toContain("data.mgmt_profile.me");
    expect(md).toContain(
      "> [!WARNING]\n> **Destructive changes:** 2 to destroy, 2 to replace.\n> `mgmt_ssh_key.del`, `mgmt_ssh_key.old`, `mgmt_ssh_key.rep`, `mgmt_ssh_key.rep2`",
    );
  });

  it("keeps drift apart and, in a normal plan, only what relevant_attributes names (deletions always)", () => {
    const md = renderMarkdown(summarize(parsePlan(mixed)));
    const drift = folds(md)["Changed outside of Terraform"]!;
    expect(addresses(md, "Changed outside of Terraform")).toEqual(["mgmt_ssh_key.upd", "mgmt_ssh_key.vanished"]);
    expect(drift).toContain('`label`: `"x"` → `"a"`');
    expect(drift).not.toContain("created");
  });

  it("shows all drift in a refresh-only plan (no resource_changes) and counts it as the change", () => {
    const { resource_changes: _, ...refreshOnly } = mixed;
    const s = summarize(parsePlan(refreshOnly));
    expect(s.drift.map((e) => e.address)).toEqual(["mgmt_ssh_key.upd", "mgmt_ssh_key.noise", "mgmt_ssh_key.vanished"]);
    expect(s.drift[0]!.attributes.map((a) => a.name)).toEqual(["created", "label"]);
    expect(s.hasChanges).toBe(true);
  });

  it("renders output changes, new and removed ones included", () => {
    const outputs = folds(renderMarkdown(summarize(parsePlan(mixed))))["Outputs"]!;
    expect(outputs.split("\n")).toEqual(["", "- `fresh`: `(known after apply)` (new)", '- `gone`: ~~`"x"`~~ (removed)', "- `n`: `1` → `2`", ""]);
  });

  it("says No changes when there are none, and has no destroy warning", () => {
    const s = summarize(parsePlan(plan({ resource_changes: [rc("mgmt_ssh_key.same", ["no-op"], { before: key(1, "a"), after: key(1, "a") })] })));
    expect(s.hasChanges).toBe(false);
    const md = renderMarkdown(s, undefined, { title: "Plan: <prod> *stack*" });
    expect(md).toBe("## Plan: &lt;prod&gt; \\*stack\\*\n\n**No changes.**\n");
  });

  it("writes the JSON summary with names and ids, never values", () => {
    const j = planReportJson(summarize(parsePlan(mixed)));
    expect(j.summary).toEqual({ add: 1, change: 2, replace: 2, destroy: 2, import: 2, move: 1, drift: 2 });
    expect(j.has_destroy).toBe(true);
    expect(j.changes.map((c) => c.address)).toEqual([
      "mgmt_ssh_key.new",
      "mgmt_ssh_key.upd",
      "mgmt_ssh_key.impupd",
      "mgmt_ssh_key.rep",
      "mgmt_ssh_key.rep2",
      "mgmt_ssh_key.del",
      "mgmt_ssh_key.old",
      "mgmt_ssh_key.imp",
      "mgmt_ssh_key.moved",
      "mgmt_ssh_key.forgot",
    ]);
    expect(j.changes.find((c) => c.address === "mgmt_ssh_key.rep")).toEqual({
      address: "mgmt_ssh_key.rep",
      type: "mgmt_ssh_key",
      actions: ["delete", "create"],
      attributes: ["created", "id", "ssh_key"],
    });
    expect(j.changes.find((c) => c.address === "mgmt_ssh_key.impupd")).toMatchObject({ import_id: "7", attributes: ["label"] });
    expect(j.changes.find((c) => c.address === "mgmt_ssh_key.moved")).toMatchObject({ previous_address: "mgmt_ssh_key.was" });
    expect(j.drift).toEqual([
      { address: "mgmt_ssh_key.upd", type: "mgmt_ssh_key", actions: ["update"], attributes: ["label"] },
      { address: "mgmt_ssh_key.vanished", type: "mgmt_ssh_key", actions: ["delete"], attributes: [] },
    ]);
    expect(JSON.stringify(j)).not.toMatch(/"(x|a|ssh-ed25519[^"]*)"/);
  });
});

describe("markdown safety", () => {
  it("keeps any value inside one inline code span on one line", () => {
    expect(code("a`b")).toBe("``a`b``");
    expect(code("`x`")).toBe("`` `x` ``");
    const md = renderMarkdown(
      summarize(
        parsePlan(plan({ resource_changes: [rc("mgmt_ssh_key.k", ["update"], { before: { label: "a" }, after: { label: "x\n</details>\n# `boom`" } })] })),
      ),
    );
    expect(md).toContain('- `label`: `"a"` → ``"x\\n</details>\\n# `boom`"``');
  });

  it("cuts a very long value with an ellipsis", () => {
    const md = renderMarkdown(summarize(parsePlan(plan({ resource_changes: [rc("mgmt_ssh_key.k", ["create"], { after: { label: "y".repeat(1000) } })] }))));
    expect(md).toContain(`\`"${"y".repeat(199)}…\``);
  });
});

describe("truncation", () => {
  const big = (n: number) =>
    summarize(
      parsePlan(
        plan({
          resource_changes: Array.from({ length: n }, (_, i) =>
            rc(`mgmt_ssh_key.k[${i}]`, ["create"], {
              after: { label: `key ${i}`, ssh_key: `ssh-ed25519 AAAA${"x".repeat(60)}${i}` },
              afterUnknown: { id: true, created: true },
            }),
          ),
        }),
      ),
    );

  it("leaves a report that fits alone", () => {
    const s = big(3);
    const f = fit((b, n) => renderMarkdown(s, b, {}, n), detailedEntries(s), lineCount(s), 65_000);
    expect(f).toMatchObject({ detailsDropped: 0, linesDropped: 0 });
    expect(f.text).toBe(renderMarkdown(s));
    expect(f.text).not.toContain("Shortened");
  });

  it("drops attribute details from the end first, then resource lines, saying so, and stays under the limit", () => {
    const s = big(2000);
    const full = renderMarkdown(s);
    expect(full.length).toBeGreaterThan(400_000);
    const f = fit((b, n) => renderMarkdown(s, b, {}, n), detailedEntries(s), lineCount(s), 65_000);
    expect(f.text.length).toBeLessThanOrEqual(65_000);
    expect(f.linesDropped).toBe(0);
    expect(f.detailsDropped).toBeGreaterThan(1000);
    expect(f.text).toContain(
      `**Shortened:** the attribute details of the last ${f.detailsDropped.toLocaleString("en-US")} of 2,000 resources were left out to keep this under 65,000 characters.`,
    );
    // Details survive at the start, all 2,000 addresses are listed, the last ones bare.
    expect(f.text).toContain("- `mgmt_ssh_key.k[0]`\n  - `created`: `(known after apply)`");
    expect(f.text).toContain("- `mgmt_ssh_key.k[1999]`\n\n</details>");
    expect(addresses(f.text, "Create")).toHaveLength(2000);

    const tight = fit((b, n) => renderMarkdown(s, b, {}, n), detailedEntries(s), lineCount(s), 10_000);
    expect(tight.text.length).toBeLessThanOrEqual(10_000);
    expect(tight.detailsDropped).toBe(2000);
    expect(tight.linesDropped).toBeGreaterThan(0);
    expect(tight.text).toContain(`- … and ${tight.linesDropped.toLocaleString("en-US")} more (left out for length)`);
    expect(tight.text).toContain(`and the last ${tight.linesDropped.toLocaleString("en-US")} resource lines were left out`);
    expect(tight.text.split("\n")[2]).toBe("**2,000 to add, 0 to change, 0 to replace, 0 to destroy, 0 to import**");
  });

  it("cuts at a line, never inside its note or a fold, when not even the summary fits", () => {
    const s = big(5);
    const f = fit((b, n) => renderMarkdown(s, b, { title: "t".repeat(500) }, n), detailedEntries(s), lineCount(s), 300);
    expect(f.text.length).toBeLessThanOrEqual(300);
    expect(f.text).toBe(cutNote(300));
    expect(f).toMatchObject({ detailsDropped: 5, linesDropped: 5 });
  });

  it("keeps the summary and the whole note at --max-chars 400 with a long destroy list", () => {
    const doomed = summarize(
      parsePlan(plan({ resource_changes: Array.from({ length: 30 }, (_, i) => rc(`mgmt_ssh_key.k${i}`, ["delete"], { before: key(i, `k${i}`) })) })),
    );
    const f = fit((b, n) => renderMarkdown(doomed, b, {}, n), detailedEntries(doomed), lineCount(doomed), 400);
    expect(f.text.length).toBeLessThanOrEqual(400);
    expect(f.text.startsWith("## Plan result\n\n**0 to add, 0 to change, 0 to replace, 30 to destroy, 0 to import**\n")).toBe(true);
    expect(f.text).toContain("> **Destructive changes:** 30 to destroy, 0 to replace.\n");
    expect(f.text.endsWith(`\n\n${cutNote(400)}`)).toBe(true);
    expect(cutNote(400)).toBe("> [!NOTE]\n> **Cut at 400 characters.** The full plan is in the CI log (`show PLANFILE`).\n");
    expect(f.text).not.toContain("<details");
  });

  it("closes a fold it keeps and drops one it would cut", () => {
    const text = [
      "## T",
      "",
      "**s**",
      "",
      "<details><summary>A (1)</summary>",
      "",
      "- `a`",
      "",
      "</details>",
      "",
      "<details><summary>B (1)</summary>",
      "",
      "- `b`",
    ].join("\n");
    const whole = cutAtLines(text, 1000);
    expect(whole).toBe(`${text.split("\n").slice(0, 9).join("\n")}\n\n${cutNote(1000)}`);
    // Room for the head and part of fold A only: the fold goes whole.
    const room = cutNote(1000).length + 40;
    expect(cutAtLines(text, room)).toBe(`## T\n\n**s**\n\n${cutNote(room)}`);
  });

  it("drops an alert heading whose text does not fit", () => {
    const text = "## T\n\n**s**\n\n> [!WARNING]\n> " + "x".repeat(300) + "\n";
    expect(cutAtLines(text, 200)).toBe(`## T\n\n**s**\n\n${cutNote(200)}`);
  });

  it("says plainly that the report does not fit when not even its note does", () => {
    expect(cutNote(60).length).toBeGreaterThan(60);
    expect(cutAtLines("## T\n", 60)).toBe("**Cut at 60 characters;** see the CI log.\n");
    expect(cutAtLines("## T\n", 10)).toBe(tooLong(10).slice(0, 10));
  });
});
