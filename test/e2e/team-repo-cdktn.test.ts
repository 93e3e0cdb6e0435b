/** @tier npm */
/**
 * `mgmt init --cdk cdktn` end to end: a CDK Terrain repository scaffolded from this build's
 * tarballs (the provider and the cdktn bindings), installed once with npm, then used as a team
 * would on Node 20, where cdktn's own CLI does not run: the npm scripts say so once and synthesize by
 * running main.ts, plan and apply with OpenTofu against `mgmt serve`, re-plan clean, pass the
 * repository's own `npm test`, and adopt unmanaged objects with the import code drift writes for the
 * cdktn bindings. The cdktn CLI itself, on Node 22, and the CI files: test/e2e/cdktn-cli.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { MgmtClient } from "../../src/client";
import type { RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";
import { installedScaffold, linkInstalled } from "../support/scaffold-install";
import { expectNoChanges, expectOwnTestsPass, expectStackDeployed, teamRepoWork } from "./team-repo-setup";

jest.setTimeout(20 * 60_000);

const STACK = "account";
const w = teamRepoWork("mgmt-team-repo-cdktn-");
const { home, sh, ok } = w;
const repo = w.scaffold("cdktn", "--cdk", "cdktn");
const stackDir = join(repo, "cdktf.out", "stacks", STACK);
let server: RunningServer;

beforeAll(async () => {
  // The one npm install of this scaffold in the run, shared with test/e2e/cdktn-cli.test.ts.
  linkInstalled(w, await installedScaffold(w, "--cdk", "cdktn"), repo);
  server = await w.serve();
}, 30 * 60_000);

afterAll(() => w.cleanUp());

describe("a repository from mgmt init --cdk cdktn, after npm install", () => {
  it("has CDK Terrain and its bindings installed, and no cdktf", () => {
    const manifest = (name: string) => JSON.parse(readFileSync(join(repo, "node_modules", name, "package.json"), "utf8")) as { version: string };
    expect(manifest("cdktn").version).toMatch(/^0\.24\./);
    expect(manifest("@mgmt/cdktn-provider-mgmt").version).toBe(PROVIDER_VERSION);
    expect(existsSync(join(repo, "node_modules", "cdktf"))).toBe(false);
  });

  it("installs the provider with npx mgmt install-provider", () => {
    ok("npx", ["mgmt", "install-provider"], repo);
    expect(existsSync(join(home, ".terraform.d", "plugins", PROVIDER_SOURCE, PROVIDER_VERSION, "linux_amd64", "terraform-provider-mgmt"))).toBe(true);
  });

  it(`synthesizes with npm run synth on node ${process.versions.node}, saying once that cdktn commands need Node 22`, () => {
    const out = ok("npm", ["run", "synth"], repo);
    expect(out.match(/cdktn commands need Node 22/g)).toEqual(["cdktn commands need Node 22"]);
    expect(out).toContain(`(this is Node v${process.versions.node}): running main.ts on node and tofu in cdktf.out/stacks/${STACK} instead`);
    const json = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8")) as {
      resource: Record<string, unknown>;
      "//": { metadata: { version: string } };
    };
    expect(Object.keys(json.resource).sort()).toEqual([
      "mgmt_account_contact",
      "mgmt_oauth_client",
      "mgmt_profile_settings",
      "mgmt_ssh_key",
      "mgmt_tag",
      "mgmt_token",
    ]);
    // The library that synthesized it: cdktn's version, not cdktf's.
    expect(json["//"].metadata.version).toMatch(/^0\.24\./);
  });

  it("plans, applies and re-plans with no changes against mgmt serve", async () => {
    const env = w.withApi(server);
    // The script runs the engine as a person would, in colour: the colour codes are taken out to read it.
    const plan = stripVTControlCharacters(ok("npm", ["run", "plan"], repo, env));
    expect(plan).toMatch(/Plan: 6 to add, 0 to change, 0 to destroy/);
    // One line, though the plan synthesizes first.
    expect(plan.match(/cdktn commands need Node 22/g)).toHaveLength(1);
    ok("npm", ["run", "deploy"], repo, env);
    await expectStackDeployed(server);
    expectNoChanges(w, "tofu", stackDir, env);
    expect(readFileSync(join(repo, `terraform.${STACK}.tfstate`), "utf8")).toContain("mgmt_tag");
  });

  it("passes its own npm test as generated (jest against mgmt serve --ephemeral, tofu test inside it)", () => {
    expectOwnTestsPass(w, repo);
  });

  // Last: main.ts then imports objects of the server above, which the throwaway ones of npm test lack.
  it("adopts unmanaged objects as cdktn code, as drift.yml writes it (mgmt drift --bindings), which plans as imports", async () => {
    const env = w.withApi(server);
    const client = new MgmtClient({ url: server.url, token: server.token });
    try {
      await client.createTag({ label: "made-by-hand" });
    } finally {
      await client.close();
    }
    const drift = sh(
      "npx",
      ["mgmt", "drift", "--dir", stackDir, "--bindings", "@mgmt/cdktn-provider-mgmt", "--unmanaged", "--import-out", "imports.ts"],
      repo,
      env,
    );
    expect({ code: drift.code }).toEqual({ code: 2 });
    const imports = readFileSync(join(repo, "imports.ts"), "utf8");
    expect(imports).toContain('from "@mgmt/cdktn-provider-mgmt";');
    expect(imports).toMatch(/label: "made-by-hand"/);
    // What the README says to do: uncomment the import and the call in main.ts.
    const main = join(repo, "main.ts");
    writeFileSync(
      main,
      readFileSync(main, "utf8")
        .replace("// import { importUnmanaged }", "import { importUnmanaged }")
        .replace("// importUnmanaged(this);", "importUnmanaged(this);"),
    );
    const plan = stripVTControlCharacters(ok("npm", ["run", "plan"], repo, env));
    expect(plan).toMatch(/Plan: [1-9]\d* to import, 0 to add, \d+ to change, 0 to destroy/);
    expect(plan).toMatch(/mgmt_tag\.tag_made_by_hand will be imported/);
  });
});
