#!/usr/bin/env node
// Construct bindings from the provider's own schema, with the generators and no engine: `mgmt
// schema` prints the schema; @cdktf/provider-generator writes cdktf bindings into generated/, and
// CDK Terrain's @cdktn/provider-generator writes cdktn bindings into examples/cdktn/.gen (where
// `cdktn get` would put them; cdktn and its own constructs range live in that workspace).
// The package roots of the generators need jsii at load time, hence the deep imports.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

process.env.CHECKPOINT_DISABLE = "1";
// The generators' commons modules run `terraform version` when loaded; an empty CLI config
// keeps that from warning about a missing ~/.terraformrc.
process.env.TF_CLI_CONFIG_FILE = "/dev/null";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const schema = JSON.parse(execFileSync(process.execPath, [join(root, "dist/cli.js"), "schema"], { encoding: "utf8" }));
const [source] = Object.keys(schema.provider_schemas);
const version = JSON.parse(execFileSync(process.execPath, [join(root, "dist/cli.js"), "version"], { encoding: "utf8" })).version;
const [major, minor] = version.split(".");
// The provider release the bindings were generated from, and the ones whose schema they still fit:
// before 1.0 a minor release may break (docs/guides/upgrading.md), so only its patches; from 1.0 on, its minors too.
const constraint = major === "0" ? `~> ${major}.${minor}.0` : `~> ${major}.${minor}`;

const targets = [
  { project: root, generator: "@cdktf/provider-generator/lib/get/generator/provider-generator", commons: "@cdktf/commons", outdir: join(root, "generated") },
  {
    project: join(root, "examples/cdktn"),
    generator: "@cdktn/provider-generator/build/get/generator/provider-generator",
    commons: "@cdktn/commons",
    outdir: join(root, "examples/cdktn/.gen"),
  },
];
for (const { project, generator: generatorPath, commons, outdir } of targets) {
  // Each generator with the codemaker and commons it was published with.
  const fromGenerator = createRequire(createRequire(join(project, "package.json")).resolve(generatorPath));
  const { TerraformProviderGenerator } = fromGenerator(generatorPath);
  const { CodeMaker } = fromGenerator("codemaker");
  const { ConstructsMakerProviderTarget, TerraformProviderConstraint, Language } = fromGenerator(commons);

  const code = new CodeMaker();
  const generator = new TerraformProviderGenerator(code, schema);
  generator.generate(new ConstructsMakerProviderTarget(new TerraformProviderConstraint(`${source}@${constraint}`), Language.TYPESCRIPT));
  rmSync(outdir, { recursive: true, force: true });
  await code.save(outdir);
}
