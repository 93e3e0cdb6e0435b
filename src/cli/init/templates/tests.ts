/** The scaffold's two tests: the engine's own test command on the synthesized stack, and jest. */
import { cdkModule } from "./cdk";
import type { ScaffoldContext } from "./context";
import { EXAMPLE_MARKER } from "./stack";

/**
 * Applied by `tofu test` / `terraform test` in cdktf.out/stacks/<stack>, against the server `mgmt serve --ephemeral` starts.
 * It names nothing main.ts declares, so it holds for whatever stack main.ts becomes.
 */
export function stackTftest(): string {
  return `# Run by \`npm run test:engine\`: the synthesized stack, whatever main.ts declares, applied to a throwaway
# local API (mgmt serve --ephemeral) and destroyed again by the test command itself; either failing
# fails the test. Add runs with asserts on your own outputs beside this one, e.g.
#   assert {
#     condition     = output.team_tag == "team-platform"
#     error_message = "the tag's label is not what main.ts sets"
#   }
run "apply" {
  command = apply
}
`;
}

export function jestConfig(c: ScaffoldContext): string {
  return `/**
 * Jest with TypeScript, its types stripped by esbuild (tools/transpile.js) and not checked again: \`npm test\`
 * type-checks first (npm run typecheck). ${cdkModule(c)}'s matchers (toHaveResourceWithProperties, ...).
 */
module.exports = {
  testEnvironment: "node",
  testMatch: ["**/__tests__/**/*.test.ts"],
  transform: { "^.+\\\\.tsx?$": "<rootDir>/tools/transpile.js" },
  setupFilesAfterEnv: ["<rootDir>/jest.setup.js"],
  testTimeout: 120000,
};
`;
}

export function jestSetup(c: ScaffoldContext): string {
  return `const { Testing } = require("${cdkModule(c)}");
Testing.setupJest();
`;
}

/**
 * The jest test of whatever main.ts declares: it synthesizes, applies, re-plans with no changes and
 * destroys, leaving the throwaway API's objects as they were. It names no resource of the example.
 */
export function stackTest(c: ScaffoldContext): string {
  const engine = c.engine;
  const driftEngine = c.engine === "terraform" ? ', "--engine", "terraform"' : "";
  return `/**
 * The stack main.ts declares, whatever it declares: synthesized (${cdkModule(c)}'s Testing), planned and
 * checked against the account's rules (mgmt policy check, mgmt-policy.json), then applied
 * through the engine to the API that \`mgmt serve --ephemeral\` starts for \`npm run test:jest\`
 * (MGMT_URL and MGMT_TOKEN in the environment), planned again with no changes, and destroyed, leaving
 * the API's objects as they were. Neither touches a real account. Checks of the example main.ts that
 * \`mgmt init\` wrote are in example.test.ts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Testing } from "${cdkModule(c)}";
import { AccountStack } from "../main";

/** The live objects of the types the provider manages, as \`mgmt drift --unmanaged\` lists them (none is in an empty state). */
function liveObjects(dir: string): string[] {
  const r = spawnSync("mgmt", ["drift", "--dir", dir${driftEngine}, "--unmanaged", "--format", "json"], { encoding: "utf8" });
  if (r.status !== 0 && r.status !== 2) throw new Error(\`mgmt drift exited \${r.status}:\\n\${r.stderr}\`);
  const report = JSON.parse(r.stdout) as { unmanaged: { type: string; id: string }[] };
  return report.unmanaged.map((o) => \`\${o.type} \${o.id}\`).sort();
}

describe("AccountStack", () => {
  it("synthesizes a configuration with resources", () => {
    const synthesized = JSON.parse(Testing.synth(new AccountStack(Testing.app(), "test"))) as { resource?: Record<string, unknown> };
    expect(Object.keys(synthesized.resource ?? {})).not.toEqual([]);
  });

  it("applies to the API in MGMT_URL, plans no changes after, and destroys all it made", () => {
    if (!process.env.MGMT_URL) throw new Error("run through npm run test:jest, which starts mgmt serve --ephemeral");
    // The synthesized stack holds whatever main.ts declares: its folder is removed whatever the outcome
    // (a refused synth, a failed apply), not only on success.
    const outdir = mkdtempSync(join(tmpdir(), "stack-test-"));
    try {
      const app = Testing.app({ outdir });
      new AccountStack(app, "test");
      app.synth();
      applyAndDestroy(outdir);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

/** Init, plan (checked against mgmt-policy.json), apply, a no-change plan, destroy: nothing left behind. */
function applyAndDestroy(outdir: string): void {
  const dir = join(outdir, "stacks", "test");
  // State in the test's own folder, whatever backend the stack uses for real.
  writeFileSync(join(dir, "backend_override.tf.json"), JSON.stringify({ terraform: { backend: { local: { path: "test.tfstate" } } } }));
  const engine = (...args: string[]) => execFileSync("${engine}", [...args, "-no-color"], { cwd: dir, encoding: "utf8" });
  engine("init", "-input=false");
  const before = liveObjects(dir);
  // The account's rules (mgmt-policy.json) on what the stack plans, as the CI plan job checks them.
  engine("plan", "-input=false", "-out=test.tfplan");
  const plan = execFileSync("${engine}", ["show", "-json", "test.tfplan"], { cwd: dir, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const policy = spawnSync("mgmt", ["policy", "check", "--plan", "-", "--config", join(__dirname, "..", "mgmt-policy.json")], {
    input: plan,
    encoding: "utf8",
  });
  // On a violation the report, which names each resource and rule, is the failure's message.
  expect({ status: policy.status, report: policy.stdout + policy.stderr }).toEqual({ status: 0, report: expect.stringContaining("**Passed.**") });
  engine("apply", "-input=false", "-auto-approve", "test.tfplan");
  // A second plan finds nothing to do: what the API returns is what the stack asked for.
  expect(engine("plan", "-input=false", "-detailed-exitcode")).toMatch(/No changes/);
  engine("destroy", "-input=false", "-auto-approve");
  expect(engine("state", "list").trim()).toBe("");
  // Nothing the apply made is left behind (objects that always exist, such as settings, are not listed).
  expect(liveObjects(dir)).toEqual(before);
}
`;
}

/**
 * Checks of the example main.ts only, apart from the tests of whatever the stack declares; they
 * stand aside (skipped, saying so) once the stack no longer has the example's marker (a child construct
 * main.ts declares among the example's objects, so a team replacing them drops it; a label would not do:
 * a team may name its own tag "team-platform").
 */
export function exampleTest(c: ScaffoldContext): string {
  return `/**
 * Checks of the example main.ts that \`mgmt init\` wrote, and of nothing else. They are skipped once
 * the stack no longer carries the example's marker (the child "${EXAMPLE_MARKER}" that main.ts declares with the
 * example's objects). Delete this file when main.ts is
 * your own; stack.test.ts tests whatever the stack declares.
 */
import { Testing } from "${cdkModule(c)}";
// The matchers' types (Testing.setupJest in jest.setup.js adds the matchers themselves).
import "${cdkModule(c)}/lib/testing/adapters/jest";
import { sshKey, tag, token } from "${c.bindings.name}";
import { AccountStack } from "../main";

const stack = new AccountStack(Testing.app(), "test");
const synthesized = Testing.synth(stack);
const isExample = stack.node.tryFindChild("${EXAMPLE_MARKER}") !== undefined;

(isExample ? describe : describe.skip)("the example stack mgmt init wrote (delete example.test.ts once main.ts is your own)", () => {
  it("synthesizes each resource with the values main.ts sets", () => {
    expect(synthesized).toHaveResourceWithProperties(tag.Tag, { label: "team-platform" });
    expect(synthesized).toHaveResourceWithProperties(token.Token, { label: "reporting", scopes: "account:read_only events:read_only" });
    expect(synthesized).toHaveResourceWithProperties(sshKey.SshKey, { label: "laptop" });
  });

  it("marks the secrets it outputs as sensitive", () => {
    const outputs = (JSON.parse(synthesized) as { output: Record<string, { sensitive?: boolean }> }).output;
    expect(outputs.reporting_token?.sensitive).toBe(true);
    expect(outputs.dashboard_client_secret?.sensitive).toBe(true);
  });
});
`;
}
