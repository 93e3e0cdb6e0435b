/** @tier engine */
/**
 * `mgmt plan-report --log` on what real engines write: `plan -json -out=PLANFILE`'s log and `show
 * -json PLANFILE`. The provider's warning (a misspelled scope area) reaches the comment under its own
 * heading with its resource, and the JSON summary counts and lists it; no secret of the plan shows.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { EngineStack } from "../e2e/stack";
import { runMgmt } from "./run-mgmt";

jest.setTimeout(240_000);

const SECRET = "hunter2-SECRET-41aa";

describe.each(availableEngines())("$name: plan-report --log shows the plan's warnings", (engine: Engine) => {
  let stack: EngineStack;
  beforeAll(async () => {
    stack = await EngineStack.start(engine);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("puts the provider's warning under Warnings, with its address, in the comment and the JSON", async () => {
    stack.write({
      variable: { secret_label: { type: "string", sensitive: true, default: SECRET } },
      resource: {
        mgmt_token: { ci: { label: "ci", scopes: "acount:read_only events:read_only" } },
        mgmt_ssh_key: { hidden: { label: "${var.secret_label}", ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAID3iYkxQ8X2JM3dpXbmZgqONUsxbADkm3/WOQ4dBKetQ" } },
      },
    });
    const planned = await runEngine(engine, ["plan", "-json", "-out=plan.out"], stack.dir, stack.env);
    expect(planned.code).toBe(0);
    const show = await runEngine(engine, ["show", "-json", "plan.out"], stack.dir, stack.env);
    expect(show.code).toBe(0);
    writeFileSync(join(stack.dir, "plan.log.jsonl"), planned.stdout);
    writeFileSync(join(stack.dir, "plan.json"), show.stdout);
    // What the unit tests read (test/report/fixtures), refreshed with MGMT_WRITE_FIXTURES=1.
    if (process.env.MGMT_WRITE_FIXTURES === "1") {
      writeFileSync(join(__dirname, "fixtures", `warnings-${engine.name}.log.jsonl`), planned.stdout.replaceAll(stack.dir, "/work/infra"));
      writeFileSync(join(__dirname, "fixtures", `warnings-${engine.name}.json`), show.stdout.replaceAll(stack.dir, "/work/infra"));
    }

    const md = await runMgmt(["plan-report", "--plan", "plan.json", "--log", "plan.log.jsonl"], { env: stack.env, cwd: stack.dir });
    expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 0, stderr: "" });
    expect(md.stdout).toMatch(/\n### Warnings \(\d+\)\n\n/);
    const warnings = md.stdout.split("### Warnings")[1]!.split("\n\n")[1]!;
    expect(warnings).toContain("- `mgmt_token.ci`, main.tf.json line ");
    expect(warnings).toContain('**Unknown scope area "acount"**: The API names');
    expect(warnings).toContain('did you mean "account"?');
    expect(md.stdout).not.toContain(SECRET);

    const json = await runMgmt(["plan-report", "--plan", "plan.json", "--log", "plan.log.jsonl", "--format", "json"], { env: stack.env, cwd: stack.dir });
    expect(json.code).toBe(0);
    expect(json.stdout).not.toContain(SECRET);
    const report = JSON.parse(json.stdout) as { warnings: { count: number; items: { summary: string; address?: string; detail: string }[] } };
    expect(report.warnings.count).toBe(report.warnings.items.length);
    expect(report.warnings.items.filter((w) => w.address !== undefined)).toEqual([
      expect.objectContaining({ address: "mgmt_token.ci", summary: 'Unknown scope area "acount"', detail: expect.stringContaining('did you mean "account"?') }),
    ]);

    // Without --log: no warnings heading, and the JSON says none (show -json carries no diagnostics).
    const bare = await runMgmt(["plan-report", "--plan", "plan.json", "--format", "json"], { env: stack.env, cwd: stack.dir });
    expect((JSON.parse(bare.stdout) as { warnings: unknown }).warnings).toEqual({ count: 0, items: [] });
  });
});
