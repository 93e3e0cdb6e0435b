#!/usr/bin/env node
// cdktf bindings from the provider's own schema, with @cdktf/provider-generator and no
// engine: `mgmt schema` prints the schema, the generator writes TypeScript into generated/.
// The package root of the generator needs jsii at load time, hence the deep import.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

process.env.CHECKPOINT_DISABLE = "1";
// The generator's commons module runs `terraform version` when loaded; an empty CLI config
// keeps that from warning about a missing ~/.terraformrc.
process.env.TF_CLI_CONFIG_FILE = "/dev/null";
const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "generated");

const schema = JSON.parse(execFileSync(process.execPath, [join(root, "dist/cli.js"), "schema"], { encoding: "utf8" }));
const [source] = Object.keys(schema.provider_schemas);
const version = JSON.parse(execFileSync(process.execPath, [join(root, "dist/cli.js"), "version"], { encoding: "utf8" })).version;

const { TerraformProviderGenerator } = require("@cdktf/provider-generator/lib/get/generator/provider-generator");
const { CodeMaker } = require("codemaker");
const { ConstructsMakerProviderTarget, TerraformProviderConstraint, Language } = require("@cdktf/commons");

const code = new CodeMaker();
const generator = new TerraformProviderGenerator(code, schema);
const [major, minor] = version.split(".");
generator.generate(new ConstructsMakerProviderTarget(new TerraformProviderConstraint(`${source}@~> ${major}.${minor}`), Language.TYPESCRIPT));
rmSync(outdir, { recursive: true, force: true });
await code.save(outdir);
