/** The scaffold's two tests: the engine's own test command on the synthesized stack, and jest. */
import { cdkModule } from "./cdk";
import type { ScaffoldContext } from "./context";

/** Applied by `tofu test` / `terraform test` in cdktf.out/stacks/<stack>, against the server `mgmt serve --ephemeral` starts. */
export function stackTftest(): string {
  return `# Run by \`npm run test:engine\`: the synthesized stack applied to a throwaway local API, its outputs
# checked, and everything destroyed again by the test command itself.
run "apply" {
  command = apply

  assert {
    condition     = output.team_tag == "team-platform"
    error_message = "the tag's label is not what main.ts sets"
  }

  assert {
    condition     = length(output.username) > 0 && can(tonumber(output.laptop_key_id))
    error_message = "the profile or the SSH key is missing"
  }

  assert {
    condition     = can(tonumber(output.reporting_token_id)) && length(output.dashboard_client_id) > 0
    error_message = "the token or the OAuth client was not created"
  }
}
`;
}

export function jestConfig(c: ScaffoldContext): string {
  return `/** Jest with TypeScript through ts-jest, and ${cdkModule(c)}'s matchers (toHaveResourceWithProperties, ...). */
module.exports = {
  testEnvironment: "node",
  testMatch: ["**/__tests__/**/*.test.ts"],
  transform: { "^.+\\\\.tsx?$": ["ts-jest", { diagnostics: { warnOnly: false } }] },
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

export function stackTest(c: ScaffoldContext): string {
  const engine = c.engine;
  return `/**
 * The stack in two ways: its synthesized configuration (${cdkModule(c)}'s Testing matchers), and applied
 * through the engine to the API that \`mgmt serve --ephemeral\` starts for \`npm run test:jest\`
 * (MGMT_URL and MGMT_TOKEN in the environment). Neither touches a real account.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Testing } from "${cdkModule(c)}";
// The matchers' types (Testing.setupJest in jest.setup.js adds the matchers themselves).
import "${cdkModule(c)}/lib/testing/adapters/jest";
import { sshKey, tag, token } from "${c.bindings.name}";
import { AccountStack } from "../main";

describe("AccountStack", () => {
  it("synthesizes each resource with the values main.ts sets", () => {
    const synthesized = Testing.synth(new AccountStack(Testing.app(), "test"));
    expect(synthesized).toHaveResourceWithProperties(tag.Tag, { label: "team-platform" });
    expect(synthesized).toHaveResourceWithProperties(token.Token, { label: "reporting", scopes: "account:read_only events:read_only" });
    expect(synthesized).toHaveResourceWithProperties(sshKey.SshKey, { label: "laptop" });
  });

  it("applies to the API in MGMT_URL", () => {
    if (!process.env.MGMT_URL) throw new Error("run through npm run test:jest, which starts mgmt serve --ephemeral");
    const outdir = Testing.fullSynth(new AccountStack(Testing.app(), "test"));
    const dir = join(outdir, "stacks", "test");
    // State in the test's own folder, whatever backend the stack uses for real.
    writeFileSync(join(dir, "backend_override.tf.json"), JSON.stringify({ terraform: { backend: { local: { path: "test.tfstate" } } } }));
    const engine = (...args: string[]) => execFileSync("${engine}", [...args, "-no-color"], { cwd: dir, encoding: "utf8" });
    engine("init", "-input=false");
    engine("apply", "-input=false", "-auto-approve");
    const outputs = JSON.parse(engine("output", "-json")) as Record<string, { value: string }>;
    expect(outputs.team_tag!.value).toBe("team-platform");
    expect(outputs.reporting_token!.value.length).toBeGreaterThan(16);
    // A second plan finds nothing to do: what the API returns is what the stack asked for.
    expect(engine("plan", "-input=false", "-detailed-exitcode")).toMatch(/No changes/);
    engine("destroy", "-input=false", "-auto-approve");
    rmSync(outdir, { recursive: true, force: true });
  });
});
`;
}
