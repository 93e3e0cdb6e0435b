// The generated construct bindings as installable npm package folders, laid out the way prebuilt
// providers (@cdktf/provider-*, @cdktn/provider-*) ship: lib/ with compiled CommonJS and
// declarations, the CDK library and constructs as peer dependencies (the bindings must use the
// project's own copies: a second cdktf would not see the first one's constructs), and the provider
// they bind under "cdktf". One package per CDK: cdktf's bindings (generated/) in dist/cdktf-bindings
// and CDK Terrain's (examples/cdktn/.gen, which import `cdktn`) in dist/cdktn-bindings.
// `npm run typecheck` checks the generated code; this step only emits it.
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { PROVIDER_PACKAGE, tarballName } from "./package-npm.mjs";

/** Each CDK's bindings package: where its generator wrote, where the package folder goes, what it peers with. */
export const BINDINGS = {
  cdktf: {
    name: "@mgmt/cdktf-provider-mgmt",
    title: "cdktf",
    library: "cdktf",
    generated: ["generated", "providers", "mgmt"],
    out: ["dist", "cdktf-bindings"],
    // The generated code compiles and synthesizes with cdktf 0.20.12 and 0.21.0 (the last release).
    peers: () => ({ cdktf: "^0.20.0 || ^0.21.0", constructs: "^10.3.0" }),
  },
  cdktn: {
    name: "@mgmt/cdktn-provider-mgmt",
    title: "CDK Terrain (cdktn)",
    library: "cdktn",
    generated: ["examples", "cdktn", ".gen", "providers", "mgmt"],
    out: ["dist", "cdktn-bindings"],
    // cdktn at the range the example workspace builds them with, and constructs in cdktn's own
    // range (narrower than cdktf's: cdktn 0.24 peers with constructs below 10.8).
    peers: (root) => {
      const workspace = join(root, "examples", "cdktn");
      const cdktn = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")).dependencies.cdktn;
      const installed = createRequire(join(workspace, "package.json"))("cdktn/package.json");
      return { cdktn, constructs: installed.peerDependencies.constructs };
    },
  },
};

/** One module of src/policy bundled for the bindings of `library` (cdktf or cdktn), which it imports as cdktf. */
const bundleFor = (library, entry, outfile) =>
  esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "es2020",
    alias: library === "cdktf" ? {} : { cdktf: library },
    external: [library, "constructs"],
    logLevel: "warning",
  });

/**
 * The policy Aspect (src/policy/aspect.ts) as lib/policy.js: one bundle of the rules, zod-free, with the CDK
 * library and constructs left to the project (an Aspect must see the project's own constructs). cdktn's package
 * gets the same code importing cdktn, whose API it mirrors. Declarations go to lib/mgmt-policy/, re-exported by lib/policy.d.ts.
 */
async function packagePolicy(root, lib, cdk, ts) {
  const library = BINDINGS[cdk].library;
  await bundleFor(library, join(root, "src/policy/aspect.ts"), join(lib, "policy.js"));
  const types = join(lib, "mgmt-policy");
  const program = ts.createProgram([join(root, "src/policy/aspect.ts")], {
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    noCheck: true,
    skipLibCheck: true,
    types: ["node"],
    rootDir: join(root, "src"),
    outDir: types,
  });
  const { emitSkipped } = program.emit();
  if (emitSkipped) throw new Error(`declarations of the policy Aspect (${cdk}) failed`);
  const aspectTypes = join(types, "policy", "aspect.d.ts");
  writeFileSync(aspectTypes, readFileSync(aspectTypes, "utf8").replace(/from "cdktf"/g, `from "${library}"`));
  writeFileSync(join(lib, "policy.d.ts"), `export * from "./mgmt-policy/policy/aspect";\n`);
  // The validation the resource constructors add (guardSecretsPlugin); the Aspect's bundle has its own copy.
  await bundleFor(library, join(root, "src/policy/construct-secrets.ts"), join(lib, "secret-guard.js"));
  const guardTypes = join(types, "policy", "construct-secrets.d.ts");
  writeFileSync(guardTypes, readFileSync(guardTypes, "utf8").replace(/from "cdktf"/g, `from "${library}"`));
  writeFileSync(join(lib, "secret-guard.d.ts"), `export * from "./mgmt-policy/policy/construct-secrets";\n`);
}

/**
 * The resources whose values a secret may be pasted into: their constructors add the validation that refuses
 * it (src/policy/construct-secrets.ts, shipped as lib/secret-guard.js), so a refused synth writes nothing of it
 * also in an app that never adds the MgmtPolicy Aspect. Inserted into the compiled JavaScript only: the
 * declarations do not change.
 */
const GUARDED_RESOURCES = ["ssh-key", "token", "oauth-client"];
const GUARD_AFTER = "    this._label = config.label;\n";

function guardSecretsPlugin(generated) {
  const files = new Set(GUARDED_RESOURCES.map((r) => join(generated, r, "index.ts")));
  return {
    name: "mgmt-secret-guard",
    setup(build) {
      build.onLoad({ filter: /index\.ts$/ }, (args) => {
        if (!files.has(args.path)) return undefined;
        const text = readFileSync(args.path, "utf8");
        const at = text.indexOf(GUARD_AFTER);
        if (at < 0 || text.indexOf(GUARD_AFTER, at + 1) >= 0) throw new Error(`${args.path}: no single place for the secret guard`);
        const end = at + GUARD_AFTER.length;
        const guard = `    this.node.addValidation(require("../secret-guard").secretValidation(this));\n`;
        return { contents: text.slice(0, end) + guard + text.slice(end), loader: "ts" };
      });
    },
  };
}

export async function packageBindings(root, { source, version }, cdk = "cdktf") {
  const { name, title, generated: generatedPath, out: outPath, peers } = BINDINGS[cdk];
  const generated = join(root, ...generatedPath);
  const out = join(root, ...outPath);
  // Written beside and then moved into place, so that no reader ever sees half a package.
  const staging = `${out}.partial`;
  const lib = join(staging, "lib");
  rmSync(staging, { recursive: true, force: true });
  // Every module but lazy-index.ts, which no entry point loads.
  const sources = readdirSync(generated, { recursive: true })
    .filter((f) => f.endsWith(".ts") && f !== "lazy-index.ts")
    .map((f) => join(generated, f));

  // JavaScript from esbuild, file by file, for what prebuilt providers target (ES2020: class fields
  // assigned, not defined); declarations from TypeScript, which only infers types here.
  const js = esbuild.build({
    entryPoints: sources,
    outbase: generated,
    outdir: lib,
    format: "cjs",
    platform: "node",
    target: "es2020",
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
    logLevel: "warning",
    plugins: [guardSecretsPlugin(generated)],
  });
  const ts = createRequire(join(root, "package.json"))("typescript");
  const program = ts.createProgram(sources, {
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    noCheck: true,
    skipLibCheck: true,
    types: [],
    rootDir: generated,
    outDir: lib,
  });
  const { diagnostics, emitSkipped } = program.emit();
  if (emitSkipped || diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
    throw new Error(`declarations of the ${cdk} bindings failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  await js;
  await packagePolicy(root, lib, cdk, ts);

  const manifest = {
    name,
    version,
    description: `Prebuilt ${title} bindings for the mgmt provider (${source}), generated from its schema`,
    license: "MPL-2.0",
    keywords: ["cdk", cdk, "provider", "mgmt", "terraform"],
    engines: { node: ">= 20.9.0" },
    main: "lib/index.js",
    types: "lib/index.d.ts",
    // What `npm publish` uploads; public on any registry (scoped packages are restricted by default on npmjs.com).
    files: ["lib/"],
    publishConfig: { access: "public" },
    // The provider package they bind, at this exact version (the bindings are its schema), as an
    // optional peer: npm then refuses another version of it beside them, while installing the
    // bindings alone never sends npm looking for it. "cdktf" is what the CDK CLIs read of a prebuilt
    // provider; cdktn's CLI (0.24) reads "cdktn" first and falls back to "cdktf", so its bindings carry both.
    peerDependencies: { ...peers(root), [PROVIDER_PACKAGE]: version },
    peerDependenciesMeta: { [PROVIDER_PACKAGE]: { optional: true } },
    cdktf: { provider: { name: source, version } },
    ...(cdk === "cdktn" ? { cdktn: { provider: { name: source, version } } } : {}),
  };
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(staging, "README.md"),
    `# ${name}

${title} constructs for the mgmt provider \`${source}\` ${version}, generated from the provider's schema.

\`\`\`sh
npm install /path/to/${tarballName(name, version)} /path/to/${tarballName(PROVIDER_PACKAGE, version)}
\`\`\`

\`\`\`ts
import { provider, sshKey } from "${name}";
// or one module: import { SshKey } from "${name}/lib/ssh-key";

new provider.MgmtProvider(this, "mgmt", {});
new sshKey.SshKey(this, "laptop", { label: "laptop", sshKey: "ssh-ed25519 AAAA... me@laptop" });
\`\`\`

The account's policy rules at synth (docs/guides/policy.md in the repository): a violation at error severity
fails the synth, naming the construct and the rule.

\`\`\`ts
import { Aspects } from "${BINDINGS[cdk].library}";
import { MgmtPolicy } from "${name}/lib/policy";

Aspects.of(stack).add(new MgmtPolicy()); // reads mgmt-policy.json in the current folder when present
\`\`\`

The constructs only describe the configuration: the engine still needs the provider itself
(\`npx mgmt install-provider\` from ${PROVIDER_PACKAGE}). The repository's README has the whole set-up.
`,
  );
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
}
