/** Every file of a new repository, by its path: a pure function of the options and the two packages (for cdktf or cdktn alike). */
import { ANSWERS_FILE, answersJson } from "./answers";
import { cdkOf } from "./templates/cdk";
import { dependabotYml, renovateJson } from "./templates/dependency-bots";
import { CDKTN_SCRIPT, cdktnScript } from "./templates/cdktn-script";
import type { ScaffoldContext } from "./templates/context";
import { driftWorkflow, planWorkflow } from "./templates/github";
import { applyWorkflow } from "./templates/github-apply";
import { gitlabCi } from "./templates/gitlab";
import { cdktfJson, gitignore, packageJson, readme, tofuShim, tofuShimPackage, tsconfigJson } from "./templates/project";
import { liveImportsTs } from "./templates/live-imports";
import { policyJson } from "./templates/policy";
import { mainTs } from "./templates/stack";
import { STACK_RUNNER, TRANSPILE_HOOK, stackRunner, transpileHook } from "./templates/stack-runner";
import { TYPECHECK, typecheckScript } from "./templates/typecheck";
import {
  JEST_GLOBAL_SETUP,
  JEST_GLOBAL_TEARDOWN,
  exampleTest,
  jestConfig,
  jestGlobalSetup,
  jestGlobalTeardown,
  jestSetup,
  stackTest,
  stackTftest,
} from "./templates/tests";

export interface ScaffoldFile {
  readonly text: string;
  readonly executable?: boolean;
}

export function scaffoldFiles(c: ScaffoldContext): Map<string, ScaffoldFile> {
  const files = new Map<string, ScaffoldFile>([
    ["package.json", { text: packageJson(c) }],
    ["cdktf.json", { text: cdktfJson(c) }],
    ["tsconfig.json", { text: tsconfigJson() }],
    ["main.ts", { text: mainTs(c) }],
    ["live-imports.ts", { text: liveImportsTs(c) }],
    ["mgmt-policy.json", { text: policyJson() }],
    [".gitignore", { text: gitignore(c) }],
    ["README.md", { text: readme(c) }],
    ["tests/stack.tftest.hcl", { text: stackTftest() }],
    ["jest.config.js", { text: jestConfig(c) }],
    [JEST_GLOBAL_SETUP, { text: jestGlobalSetup() }],
    [JEST_GLOBAL_TEARDOWN, { text: jestGlobalTeardown() }],
    ["jest.setup.js", { text: jestSetup(c) }],
    ["__tests__/stack.test.ts", { text: stackTest(c) }],
    ["__tests__/example.test.ts", { text: exampleTest(c) }],
    [STACK_RUNNER, { text: stackRunner(c), executable: true }],
    [TRANSPILE_HOOK, { text: transpileHook() }],
    [TYPECHECK, { text: typecheckScript() }],
  ]);
  // What init was asked, for `mgmt init --update` (./answers.ts).
  const answers = { version: c.provider.version, ci: c.ci, backend: c.backend, engine: c.engine, cdk: cdkOf(c), vendored: c.provider.file !== undefined };
  files.set(ANSWERS_FILE, { text: answersJson(c.projectId === undefined ? answers : { ...answers, projectId: c.projectId }) });
  if (cdkOf(c) === "cdktn") files.set(CDKTN_SCRIPT, { text: cdktnScript(c), executable: true });
  if (c.engine === "tofu") {
    files.set("tools/tofu/package.json", { text: tofuShimPackage() });
    files.set("tools/tofu/tofu", { text: tofuShim(), executable: true });
  }
  if (c.ci.includes("github")) {
    files.set(".github/workflows/plan.yml", { text: planWorkflow(c) });
    files.set(".github/workflows/drift.yml", { text: driftWorkflow(c) });
    // Applies need the state shared: with local state a CI run would start from nothing.
    if (c.backend === "pg") files.set(".github/workflows/apply.yml", { text: applyWorkflow(c) });
  }
  if (c.ci.includes("gitlab")) files.set(".gitlab-ci.yml", { text: gitlabCi(c) });
  files.set("renovate.json", { text: renovateJson() });
  if (c.ci.includes("github")) files.set(".github/dependabot.yml", { text: dependabotYml(c) });
  return files;
}
