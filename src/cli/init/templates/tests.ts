/**
 * The scaffold's tests, one lifecycle: jest.global-setup.js synthesizes main.ts once and starts its type
 * check, which jest.global-teardown.js awaits; stack.test.ts runs the engine's own test command once on each
 * synthesized stack (it applies, plans again and destroys) and asserts on that run's output; example.test.ts
 * reads the same synthesized files.
 */
import { cdkModule } from "./cdk";
import type { ScaffoldContext } from "./context";
import { EXAMPLE_MARKER } from "./stack";
import { STACK_RUNNER } from "./stack-runner";
import { TYPECHECK } from "./typecheck";

/** The jest global setup's file: the one synth before any test file, and the type check started beside the tests. */
export const JEST_GLOBAL_SETUP = "jest.global-setup.js";
/** The jest global teardown's file: the type check's outcome. */
export const JEST_GLOBAL_TEARDOWN = "jest.global-teardown.js";

/**
 * Applied by `tofu test` / `terraform test` beside each synthesized stack (stack.test.ts), against the server
 * `mgmt serve --ephemeral` starts. It names nothing main.ts declares, so it holds for whatever stack main.ts becomes.
 */
export function stackTftest(): string {
  return `# Run by \`npm test\` (__tests__/stack.test.ts): each stack main.ts synthesizes, applied to a throwaway local API
# (mgmt serve --ephemeral), planned again, and destroyed by the test command itself. jest reads this one run:
# the second plan must propose nothing and pass the account's rules (mgmt-policy.json), and nothing the apply
# made may be left. Add runs with asserts on your own outputs between the two, e.g.
#   assert {
#     condition     = output.team_tag == "team-platform"
#     error_message = "the tag's label is not what main.ts sets"
#   }
run "apply" {
  command = apply
}

# Keep this run last: stack.test.ts checks its plan.
run "replan" {
  command = plan
}
`;
}

export function jestConfig(c: ScaffoldContext): string {
  return `/**
 * Jest with TypeScript, its types stripped by esbuild (tools/transpile.js) and not checked again: the type
 * check is the global setup's (${JEST_GLOBAL_SETUP}, beside the synth and the tests; ${JEST_GLOBAL_TEARDOWN}
 * awaits it). ${cdkModule(c)}'s matchers (toHaveResourceWithProperties, ...).
 */
module.exports = {
  testEnvironment: "node",
  testMatch: ["**/__tests__/**/*.test.ts"],
  transform: { "^.+\\\\.tsx?$": "<rootDir>/tools/transpile.js" },
  globalSetup: "<rootDir>/${JEST_GLOBAL_SETUP}",
  globalTeardown: "<rootDir>/${JEST_GLOBAL_TEARDOWN}",
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
 * Before any test: the synth (${STACK_RUNNER} synth), awaited, and the type check (${TYPECHECK}, npm run
 * typecheck) started beside it and the tests, its outcome awaited by the global teardown. The type check is
 * the run's slowest step when a file changed and nothing else needs it; the tests apply to a throwaway server,
 * so running them beside it risks nothing, and a type error still fails the run with the compiler's messages.
 */
export function jestGlobalSetup(): string {
  return `/**
 * Written by \`mgmt init\`. Before any test: the one synth of main.ts (\`npm run synth\`: cdktf.out, which the
 * tests read), and the type check (what \`npm run typecheck\` runs) started beside it. The tests do not wait
 * for the type check; ${JEST_GLOBAL_TEARDOWN} does, and fails the run with the compiler's messages.
 */
"use strict";
const { spawn } = require("node:child_process");
const { join } = require("node:path");

/** Runs node with \`args\` in the repository: its exit status and its output, both streams in order. */
function node(args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: __dirname, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", fail);
    child.once("close", (code) => done({ code, output }));
  });
}

/** A step's failure as the run's error: its messages, without a stack trace into this file. */
function failure(what, step) {
  const error = new Error(\`\${what} failed:\\n\${step.output}\`);
  error.stack = error.message;
  return error;
}

module.exports = async () => {
  // Awaited by ${JEST_GLOBAL_TEARDOWN}, which jest runs in this process.
  globalThis.typecheck = node([join(__dirname, "${TYPECHECK}")]).then((step) =>
    step.code === 0 ? undefined : failure("the type check (npm run typecheck)", step),
  );
  const synth = await node([join(__dirname, "${STACK_RUNNER}"), "synth"]);
  // A synth that failed on a type error: the compiler's messages say more than the synth's.
  if (synth.code !== 0) throw (await globalThis.typecheck) ?? failure("the synth (npm run synth)", synth);
  // The synth's warnings (the account's rules at warning severity) are worth seeing.
  if (synth.output.trim()) process.stderr.write(synth.output);
};
`;
}

/** After the tests: the outcome of the type check the global setup started. */
export function jestGlobalTeardown(): string {
  return `/**
 * Written by \`mgmt init\`. After the tests: waits for the type check ${JEST_GLOBAL_SETUP} started, and fails
 * the run with the compiler's messages if it failed.
 */
"use strict";
module.exports = async () => {
  const error = await globalThis.typecheck;
  if (error) throw error;
};
`;
}

/**
 * The jest test of whatever main.ts declares: each synthesized stack applied, planned again with no changes and
 * destroyed by one run of the engine's test command, whose output it checks. It names no resource of the example.
 */
export function stackTest(c: ScaffoldContext): string {
  const engine = c.engine;
  const driftEngine = c.engine === "terraform" ? ', "--engine", "terraform"' : "";
  return `/**
 * The stacks main.ts declares, whatever they declare, as synthesized by the global setup (jest.global-setup.js,
 * into cdktf.out): each is applied by the engine's own test command (\`${engine} test\`, tests/*.tftest.hcl) to the
 * API that \`mgmt serve --ephemeral\` starts for \`npm test\` (MGMT_URL and MGMT_TOKEN in the environment), planned
 * again and destroyed by it. This test reads that one run: every run block passed, the second plan proposes no
 * change and passes the account's rules (mgmt policy check, mgmt-policy.json), and nothing the apply made is
 * left in the API. Neither touches a real account. Checks of the example main.ts that \`mgmt init\` wrote are in
 * example.test.ts.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

const root = join(__dirname, "..");
const out = join(root, "cdktf.out");
const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
  stacks: Record<string, { workingDirectory: string; synthesizedStackPath: string }>;
};

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command run to its end, without a shell; \`input\` on its stdin. */
function run(command: string, args: string[], cwd: string, input?: string): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", fail);
    child.once("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** One line of \`${engine} test -json -verbose\`: the plan and state lines hold the stack's secrets, so they are never printed. */
interface TestMessage {
  type: string;
  "@message": string;
  "@testrun"?: string;
  diagnostic?: { detail?: string };
  test_summary?: { status: string };
  test_plan?: Plan;
  test_state?: { values?: { root_module?: StateModule }; root_module?: StateModule };
}
interface Plan {
  format_version?: string;
  plan_format_version?: string;
  resource_changes?: { address: string; mode: string; change: { actions: string[] } }[];
  output_changes?: Record<string, { actions: string[] }>;
}
interface StateModule {
  resources?: { type: string; mode: string; values?: { id?: string } }[];
  child_modules?: StateModule[];
}

/** The objects a state holds, as \`mgmt drift --unmanaged\` names them (type and id). */
function objectsOf(module: StateModule | undefined): string[] {
  if (!module) return [];
  const own = (module.resources ?? []).filter((r) => r.mode === "managed" && r.values?.id).map((r) => \`\${r.type} \${r.values!.id}\`);
  return [...own, ...(module.child_modules ?? []).flatMap(objectsOf)];
}

describe.each(Object.entries(manifest.stacks))("stack %s", (name, stack) => {
  it("synthesizes a configuration with resources", () => {
    const synthesized = JSON.parse(readFileSync(join(out, stack.synthesizedStackPath), "utf8")) as { resource?: Record<string, unknown> };
    expect(Object.keys(synthesized.resource ?? {})).not.toEqual([]);
  });

  it("applies to the API in MGMT_URL, plans no changes after, passes the account's rules, and destroys all it made", async () => {
    if (!process.env.MGMT_URL) throw new Error("run through npm test, which starts mgmt serve --ephemeral");
    // A copy of the synthesized stack with the tests beside it (the engine takes no test folder outside the
    // configuration) and its state in its own folder, whatever backend the stack uses for real; removed
    // whatever the outcome. Left out: the deploy's data folder and state.
    const from = join(out, stack.workingDirectory);
    const dir = mkdtempSync(join(tmpdir(), \`stack-test-\${name}-\`));
    try {
      cpSync(from, dir, { recursive: true, filter: (f) => f === from || !/^\\.terraform|\\.tfstate|\\.tfplan$/.test(basename(f)) });
      cpSync(join(root, "tests"), join(dir, "tests"), { recursive: true });
      writeFileSync(join(dir, "backend_override.tf.json"), JSON.stringify({ terraform: { backend: { local: { path: "test.tfstate" } } } }));
      const init = await run("${engine}", ["init", "-input=false", "-no-color"], dir);
      if (init.code !== 0) throw new Error(\`${engine} init exited \${init.code}:\\n\${init.stdout}\${init.stderr}\`);

      const test = await run("${engine}", ["test", "-json", "-verbose", "-no-color"], dir);
      const messages = test.stdout.split("\\n").flatMap((line): TestMessage[] => {
        try {
          return [JSON.parse(line) as TestMessage];
        } catch {
          return [];
        }
      });
      // The engine's own words on what failed (its messages and diagnostics, never a plan or state).
      const log = messages
        .filter((m) => m.type !== "test_plan" && m.type !== "test_state")
        .map((m) => m["@message"] + (m.diagnostic?.detail ? \`\\n\${m.diagnostic.detail}\` : ""))
        .join("\\n");
      const summary = messages.find((m) => m.type === "test_summary")?.test_summary?.status;
      expect({ exit: test.code, summary, log: test.code === 0 && summary === "pass" ? "" : \`\${log}\\n\${test.stderr}\` }).toEqual({ exit: 0, summary: "pass", log: "" });

      // The last plan, after the apply: what the API returns is what the stack asked for.
      const replan = messages.filter((m) => m.test_plan).pop()?.test_plan;
      expect(replan).toBeDefined();
      const changes = [
        ...(replan!.resource_changes ?? []).filter((r) => !(r.mode === "data" && r.change.actions.join() === "read")).map((r) => [r.address, r.change.actions]),
        ...Object.entries(replan!.output_changes ?? {}).map(([output, c]) => [\`\${output} (an output)\`, c.actions]),
      ].filter(([, actions]) => (actions as string[]).join() !== "no-op");
      expect(changes).toEqual([]);

      // The account's rules (mgmt-policy.json) on what the stack plans, values and all, as the CI plan job checks them;
      // and what the apply made (its state's objects), looked for in the API after the destroy: at the same time.
      // (OpenTofu prints the plan and state as show -json does; Terraform as its renderer reads them: the same
      // resource changes and objects, the plan's version named plan_format_version and the state's modules at the top.)
      const state = messages.find((m) => m.test_state)?.test_state;
      const made = objectsOf(state?.values?.root_module ?? state?.root_module);
      const plan = { format_version: replan!.format_version ?? replan!.plan_format_version, ...replan };
      const [policy, drift] = await Promise.all([
        run("mgmt", ["policy", "check", "--plan", "-", "--config", join(root, "mgmt-policy.json")], dir, JSON.stringify(plan)),
        run("mgmt", ["drift", "--dir", dir${driftEngine}, "--unmanaged", "--format", "json"], dir),
      ]);
      // On a violation the report, which names each resource and rule, is the failure's message.
      expect({ status: policy.code, report: policy.stdout + policy.stderr }).toEqual({ status: 0, report: expect.stringContaining("**Passed.**") });
      if (drift.code !== 0 && drift.code !== 2) throw new Error(\`mgmt drift exited \${drift.code}:\\n\${drift.stderr}\`);
      const live = new Set((JSON.parse(drift.stdout) as { unmanaged: { type: string; id: string }[] }).unmanaged.map((o) => \`\${o.type} \${o.id}\`));
      // Objects that always exist (the account's contact, the profile's settings) are not listed, so not looked for.
      expect(made).not.toEqual([]);
      expect(made.filter((o) => live.has(o))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
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
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Testing } from "${cdkModule(c)}";
// The matchers' types (Testing.setupJest in jest.setup.js adds the matchers themselves).
import "${cdkModule(c)}/lib/testing/adapters/jest";
import { sshKey, tag, token } from "${c.bindings.name}";
import { AccountStack } from "../main";

// The stack is constructed only to look for the marker; what is checked is the one synth of npm test
// (jest.global-setup.js), the configuration the engine applies.
const isExample = new AccountStack(Testing.app(), "example").node.tryFindChild("${EXAMPLE_MARKER}") !== undefined;
const synthesized = isExample ? readFileSync(join(__dirname, "..", "cdktf.out", "stacks", "${c.stack}", "cdk.tf.json"), "utf8") : "";

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
