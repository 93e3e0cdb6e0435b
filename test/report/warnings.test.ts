/** @tier cli */
/**
 * Warnings from the plan's machine-readable log: parsed from what both engines really write
 * (fixtures recorded by warnings-engines.test.ts), masked as values are, and rendered under a
 * heading of their own in the comment and as a count and list in the JSON.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEngineLog, type EngineDiagnostic } from "../../src/report/engine-log";
import { planReportJson } from "../../src/report/json";
import { MAX_WARNINGS, renderMarkdown } from "../../src/report/markdown";
import { maskText, SENSITIVE } from "../../src/report/mask";
import { parsePlanJson, PlanFormatError } from "../../src/report/plan-model";
import { summarize } from "../../src/report/summary";
import { planSecrets } from "../../src/report/warnings";
import { cryptoSecrets } from "../../src/server/clock";
import { privateKey } from "../support/private-keys";
import { runMgmt } from "./run-mgmt";

const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name), "utf8");
/** The sensitive variable's value in the fixtures' plans. */
const SECRET = "hunter2-SECRET-41aa";

describe.each(["tofu", "terraform"])("%s's plan -json log", (engine) => {
  const log = fixture(`warnings-${engine}.log.jsonl`);
  const plan = parsePlanJson(fixture(`warnings-${engine}.json`));

  it("gives the provider's warning with its address and place, and the engine's own", () => {
    const diagnostics = parseEngineLog(log);
    expect(diagnostics).toContainEqual({
      severity: "warning",
      summary: 'Unknown scope area "acount"',
      detail: expect.stringContaining('did you mean "account"?'),
      address: "mgmt_token.ci",
      filename: "main.tf.json",
      line: expect.any(Number),
    });
    expect(diagnostics.map((d) => d.summary)).toContain("Provider development overrides are in effect");
  });

  it("puts them under Warnings in the comment, before the changes, and in the JSON", () => {
    const summary = summarize(plan, { diagnostics: parseEngineLog(log) });
    const md = renderMarkdown(summary);
    expect(md.indexOf("### Warnings (2)")).toBeGreaterThan(0);
    expect(md.indexOf("### Warnings (2)")).toBeLessThan(md.indexOf("<details>"));
    expect(md).toMatch(
      /^- `mgmt_token\.ci`, main\.tf\.json line \d+: \*\*Unknown scope area "acount"\*\*: The API names the scope areas account, child\\_account/m,
    );
    const json = planReportJson(summary);
    expect(json.warnings.count).toBe(2);
    expect(json.warnings.items.find((w) => w.address === "mgmt_token.ci")).toMatchObject({ summary: 'Unknown scope area "acount"', filename: "main.tf.json" });
  });

  it("masks what the plan marks sensitive, should a warning repeat it", () => {
    expect(planSecrets(plan)).toContain(SECRET);
    const leaky: EngineDiagnostic = { severity: "warning", summary: `About ${SECRET}`, detail: `label "${SECRET}" is odd`, address: "mgmt_ssh_key.hidden" };
    const summary = summarize(plan, { diagnostics: [leaky] });
    expect(summary.warnings).toEqual([{ summary: `About ${SENSITIVE}`, detail: `label "${SENSITIVE}" is odd`, address: "mgmt_ssh_key.hidden" }]);
    expect(renderMarkdown(summary)).not.toContain(SECRET);
    expect(JSON.stringify(planReportJson(summary))).not.toContain(SECRET);
  });
});

describe("parseEngineLog", () => {
  const line = (diagnostic: Record<string, unknown>) => JSON.stringify({ "@level": "warn", "@message": "x", type: "diagnostic", diagnostic });

  it("gives each diagnostic once, skips lines that are not the format, and ignores the snippet", () => {
    const w = line({ severity: "warning", summary: "S", detail: "D", snippet: { code: "label = SECRET-IN-SNIPPET" } });
    const text = ["not json", w, w, '{"broken', JSON.stringify({ type: "version", terraform: "1.11" }), line({ severity: "error", summary: "E" })].join("\n");
    const parsed = parseEngineLog(text);
    expect(parsed).toEqual([
      { severity: "warning", summary: "S", detail: "D" },
      { severity: "error", summary: "E", detail: "" },
    ]);
    expect(JSON.stringify(parsed)).not.toContain("SNIPPET");
  });

  it.each([
    ["", /the log is empty/],
    ['{"format_version":"1.2","resource_changes":[]}', /no line of the engines' machine-readable format/],
  ])("refuses %j", (text, reason) => {
    expect(() => parseEngineLog(text)).toThrow(PlanFormatError);
    expect(() => parseEngineLog(text)).toThrow(reason);
  });
});

describe("maskText", () => {
  it("masks known secrets (longest first), private keys and minted tokens, and leaves short strings alone", () => {
    const key = privateKey("openssh-ed25519").trimEnd();
    const token = cryptoSecrets.token();
    const text = `a ${SECRET}-long and ${SECRET}; key ${key} token ${token}; flag no`;
    expect(maskText(text, [SECRET, `${SECRET}-long`, "no"])).toBe(`a ${SENSITIVE} and ${SENSITIVE}; key ${SENSITIVE} token ${SENSITIVE}; flag no`);
  });
});

describe("the comment with many warnings", () => {
  it(`lists ${MAX_WARNINGS}, cuts long details, and counts the rest`, () => {
    const plan = parsePlanJson(fixture("warnings-tofu.json"));
    const many: EngineDiagnostic[] = Array.from({ length: MAX_WARNINGS + 3 }, (_, i) => ({ severity: "warning", summary: `W${i}`, detail: "x".repeat(2000) }));
    const md = renderMarkdown(summarize(plan, { diagnostics: many }));
    expect(md).toContain(`### Warnings (${MAX_WARNINGS + 3})`);
    expect(md.match(/^- \*\*W\d+\*\*/gm)).toHaveLength(MAX_WARNINGS);
    expect(md).toContain("- … and 3 more (see the CI log)");
    expect(md).not.toContain("x".repeat(601));
  });
});

describe("mgmt plan-report --log", () => {
  const dir = join(__dirname, "fixtures");
  it("refuses a log it cannot read or use, and stdin twice", async () => {
    const missing = await runMgmt(["plan-report", "--plan", join(dir, "warnings-tofu.json"), "--log", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^mgmt plan-report: cannot read the log /);
    const notLog = await runMgmt(["plan-report", "--plan", join(dir, "warnings-tofu.json"), "--log", join(dir, "warnings-tofu.json")]);
    expect(notLog).toMatchObject({ code: 1, stderr: expect.stringMatching(/no line of the engines' machine-readable format/) });
    const twice = await runMgmt(["plan-report", "--log", "-"]);
    expect(twice).toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot both be read from stdin/) });
  });

  it("documents --log FILE in --help", async () => {
    const help = await runMgmt(["plan-report", "--help"]);
    expect(help.stdout).toMatch(/\[--log FILE\]/);
    expect(help.stdout).toMatch(/--log FILE +the plan's machine-readable log/);
  });
});
