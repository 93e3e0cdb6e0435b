/** @tier engine */
/**
 * The state-upgrade mechanism with real engines: release 0 of the notes fixture
 * (test/plugin/fixtures/notes-provider.ts) stores a note's tags as a string, release 1 as a list
 * with an upgrader. State release 0 wrote plans with no changes under release 1 and is stored in
 * the new shape by its next write; the engines then refuse it to release 0.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AUTOMATION_ENV, availableEngines, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { buildPlugin, type BuiltPlugin } from "../plugin/build-fixture";
import { runMgmt } from "../report/run-mgmt";

jest.setTimeout(180_000);

let plugin: BuiltPlugin;
beforeAll(async () => {
  plugin = await buildPlugin(join(__dirname, "..", "plugin", "fixtures", "notes-main.ts"));
});
afterAll(() => plugin?.cleanup());

describe.each(availableEngines())("$name upgrades a resource's stored state across schema versions", (engine: Engine) => {
  let dir: string;
  const env = (release: "0" | "1") => ({
    ...process.env,
    ...AUTOMATION_ENV,
    TF_CLI_CONFIG_FILE: writeCliConfig(dir, "dev", plugin.dir),
    FIXTURE_STORE: join(dir, "notes.json"),
    FIXTURE_NOTE_VERSION: release,
  });
  const run = (release: "0" | "1", ...args: string[]) => runEngine(engine, [...args.slice(0, 1), "-no-color", ...args.slice(1)], dir, env(release));
  const write = (tags: unknown, color = "green") =>
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        resource: { mgmt_note: { a: { title: "first", tags, color } } },
      }),
    );
  const stored = () => {
    const s = JSON.parse(readFileSync(join(dir, "terraform.tfstate"), "utf8")) as {
      resources: { instances: { schema_version: number; attributes: unknown }[] }[];
    };
    return s.resources[0]!.instances[0]!;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `mgmt-state-upgrade-${engine.name}-`));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("plans release 0's state with no changes under release 1, and stores it in release 1's shape", async () => {
    write("red,blue");
    expect((await run("0", "apply", "-auto-approve")).code).toBe(0);
    expect(stored()).toMatchObject({ schema_version: 0, attributes: { id: "1", title: "first", tags: "red,blue" } });

    write(["red", "blue"]);
    const plan = await run("1", "plan", "-detailed-exitcode");
    expect({ code: plan.code, output: plan.code === 0 ? "" : plan.stdout + plan.stderr }).toEqual({ code: 0, output: "" });
    expect((await run("1", "apply", "-refresh-only", "-auto-approve")).code).toBe(0);
    expect(stored()).toMatchObject({ schema_version: 1, attributes: { id: "1", title: "first", tags: ["red", "blue"], color: "green" } });
  });

  it("warns at plan where a deprecated attribute is set, naming the release that removes it", async () => {
    const plan = await run("1", "plan");
    expect(plan.code).toBe(0);
    const output = (plan.stdout + plan.stderr).replace(/\s+/g, " ");
    expect(output).toContain("Warning: Deprecated attribute color");
    expect(output).toContain("Deprecated: Use tags instead. It is removed in release 2.0.0.");

    // Review sees it too: the plan's machine-readable log through mgmt plan-report --log.
    const logged = await run("1", "plan", "-json", "-out=plan.out");
    writeFileSync(join(dir, "plan.log.jsonl"), logged.stdout);
    const shown = await runEngine(engine, ["show", "-json", "plan.out"], dir, env("1"));
    writeFileSync(join(dir, "plan.json"), shown.stdout);
    const report = await runMgmt(["plan-report", "--plan", join(dir, "plan.json"), "--log", join(dir, "plan.log.jsonl")]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain("### Warnings (");
    expect(report.stdout).toContain(
      "- `mgmt_note.a`, main.tf.json line 1: **Deprecated attribute color**: Deprecated: Use tags instead. It is removed in release 2.0.0.",
    );
  });

  // Both engines compare the stored schema version with the provider's before asking it (the
  // provider's own refusal, naming both versions, is for any caller that does not: test/provider/state-upgrade.test.ts).
  it("is refused by release 0, and the state release 1 wrote is left as it was", async () => {
    write("red,blue");
    const before = readFileSync(join(dir, "terraform.tfstate"), "utf8");
    const plan = await run("0", "plan");
    expect(plan.code).toBe(1);
    expect((plan.stdout + plan.stderr).replace(/\s+/g, " ")).toContain("created by a newer provider version than is currently selected");
    expect(readFileSync(join(dir, "terraform.tfstate"), "utf8")).toBe(before);
  });
});
