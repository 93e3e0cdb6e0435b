/** @tier engine */
/**
 * Every example folder (examples/**, each folder with a .tf file) as a user copies it: `init` and
 * `validate` in a folder of its own, against the provider package the build writes (dist/mirror; run
 * `npm run build` first), on OpenTofu and, when it is on PATH, Terraform.
 *
 * OpenTofu 1.6, the one bundled, cannot parse `provider::` function calls (1.7+) or `ephemeral` blocks
 * (1.11+): it refuses the whole configuration. Examples using either are validated with Terraform only; which
 * those are is read from their text below, and a test shows the bundled OpenTofu still refuses them.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { AUTOMATION_ENV, availableEngines, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { startServe } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";

jest.setTimeout(600_000);

const EXAMPLES = repoPath("examples");

/** Folders under examples/ holding a .tf file; dependencies and generated bindings are not examples. */
function exampleFolders(dir: string = EXAMPLES): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = entries.some((e) => e.isFile() && e.name.endsWith(".tf")) ? [dir] : [];
  const below = entries
    .filter((e) => e.isDirectory() && e.name !== "node_modules" && !e.name.startsWith("."))
    .flatMap((e) => exampleFolders(join(dir, e.name)));
  return [...own, ...below];
}

const tfText = (folder: string) =>
  readdirSync(folder)
    .filter((f) => f.endsWith(".tf"))
    .map((f) => readFileSync(join(folder, f), "utf8"))
    .join("\n");

/** What OpenTofu 1.6 cannot parse: a provider function call, or an ephemeral block. */
const needsNewerEngine = (text: string) => /provider::/.test(text) || /^\s*ephemeral\s+"/m.test(text);

const folders = exampleFolders();
const newer = folders.filter((f) => needsNewerEngine(tfText(f)));
const engines = availableEngines();
const terraform = engines.find((e) => e.name === "terraform");
const tofu = engines.find((e) => e.name === "tofu")!;

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A copy of the example in a folder of its own, as a user would have it, with the provider's source declared. */
function copyOf(folder: string): { dir: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), "mgmt-example-"));
  roots.push(root);
  const dir = join(root, "example");
  cpSync(folder, dir, { recursive: true });
  // Most examples are snippets of one configuration: the engine needs the provider's source from
  // somewhere, as examples/provider/provider.tf gives it.
  if (!/required_providers/.test(tfText(dir))) {
    writeFileSync(join(dir, "providers.tf"), `terraform {\n  required_providers {\n    mgmt = { source = "${PROVIDER_SOURCE}" }\n  }\n}\n`);
  }
  // A home of its own: no file of the machine's user may make an example pass.
  const env = { ...process.env, ...AUTOMATION_ENV, HOME: root, TF_CLI_CONFIG_FILE: writeCliConfig(root, "mirror") };
  return { dir, env };
}

async function validate(engine: Engine, folder: string): Promise<{ code: number | null; output: string }> {
  const { dir, env } = copyOf(folder);
  const init = await runEngine(engine, ["init", "-no-color", "-backend=false"], dir, env);
  if (init.code !== 0) return { code: init.code, output: `init: ${init.stdout}\n${init.stderr}` };
  const r = await runEngine(engine, ["validate", "-no-color"], dir, env);
  return { code: r.code, output: `${r.stdout}\n${r.stderr}` };
}

const name = (folder: string) => relative(EXAMPLES, folder);

beforeAll(() => {
  expect(existsSync(repoPath("dist", "mirror"))).toBe(true);
});

it("finds the examples, the provider's own among them", () => {
  expect(folders.map(name)).toEqual(expect.arrayContaining(["provider", "resources/mgmt_ssh_key", "data-sources/mgmt_account", "functions/scopes_normalize"]));
  expect(newer.map(name)).toEqual(expect.arrayContaining(["functions/scopes_normalize", "ephemeral-resources/mgmt_child_account_token"]));
});

describe.each(engines)("$name validates", (engine: Engine) => {
  const mine = engine.name === "tofu" ? folders.filter((f) => !newer.includes(f)) : folders;
  it.each(mine.map((f) => [name(f), f]))("examples/%s", async (_name, folder) => {
    const r = await validate(engine, folder);
    expect({ code: r.code, output: r.code === 0 ? "" : r.output }).toEqual({ code: 0, output: "" });
  });
});

describe("the bundled OpenTofu 1.6", () => {
  it.each(newer.map((f) => [name(f), f]))("cannot parse examples/%s (validated with Terraform only)", async (_name, folder) => {
    const r = await validate(tofu, folder);
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/provider::|ephemeral|Unsupported block type|Invalid character|Missing newline/);
  });
});

describe("the resource examples, as one configuration", () => {
  it("apply with OpenTofu against mgmt serve's default fixtures, and plan no change after", async () => {
    const server = await startServe();
    try {
      const resources = folders.filter((f) => name(f).startsWith("resources/"));
      expect(resources.length).toBeGreaterThanOrEqual(6);
      const { dir, env } = copyOf(EXAMPLES);
      rmSync(dir, { recursive: true, force: true });
      cpSync(join(EXAMPLES, "provider"), dir, { recursive: true });
      // Each example's .tf files under names of their own (they share names); files they read keep theirs.
      for (const f of resources) {
        for (const file of readdirSync(f).filter((n) => n !== "import.sh"))
          cpSync(join(f, file), join(dir, file.endsWith(".tf") ? `${basename(f)}-${file}` : file));
      }
      expect(readdirSync(dir).filter((n) => n.endsWith(".tf"))).toHaveLength(resources.length + 1);
      const run = { ...env, MGMT_URL: server.url, MGMT_TOKEN: server.token };
      for (const args of [["init"], ["apply", "-auto-approve"]]) {
        const r = await runEngine(tofu, [...args, "-no-color"], dir, run);
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
      }
      const again = await runEngine(tofu, ["plan", "-detailed-exitcode", "-no-color"], dir, run);
      expect({ code: again.code, stdout: again.code === 0 ? "" : again.stdout }).toEqual({ code: 0, stdout: "" });
    } finally {
      await server.stop();
    }
  });
});

it("has Terraform to validate what OpenTofu 1.6 cannot, or says it was not found", () => {
  // Without Terraform on PATH the examples above are validated by nobody: this names them.
  if (!terraform) console.warn(`terraform not on PATH: not validated: ${newer.map(name).join(", ")}`);
  expect(newer.length).toBeGreaterThan(0);
});
