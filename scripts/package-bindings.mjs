// The generated cdktf bindings as an installable npm package folder, dist/cdktf-bindings, laid out
// the way prebuilt providers (@cdktf/provider-*) ship: lib/ with compiled CommonJS and
// declarations, cdktf and constructs as peer dependencies (the bindings must use the project's own
// copies: a second cdktf would not see the first one's constructs), and the provider they bind
// under "cdktf". `npm run typecheck` checks the generated code; this step only emits it.
import { readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { PROVIDER_PACKAGE } from "./package-npm.mjs";

const BINDINGS_PACKAGE = "@mgmt/cdktf-provider-mgmt";

export async function packageBindings(root, { source, version }) {
  const generated = join(root, "generated", "providers", "mgmt");
  const out = join(root, "dist", "cdktf-bindings");
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
    throw new Error(`declarations of the bindings failed:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  await js;

  const manifest = {
    name: BINDINGS_PACKAGE,
    version,
    description: `Prebuilt cdktf bindings for the mgmt provider (${source}), generated from its schema`,
    license: "MPL-2.0",
    keywords: ["cdk", "cdktf", "provider", "mgmt", "terraform"],
    engines: { node: ">= 20.9.0" },
    main: "lib/index.js",
    types: "lib/index.d.ts",
    // The generated code compiles and synthesizes with cdktf 0.20.12 and 0.21.0 (the last release).
    // The provider package they bind, at this exact version (the bindings are its schema), as an
    // optional peer: npm then refuses another version of it beside them, while installing the
    // bindings alone never sends npm looking for it. "cdktf" is what cdktf-cli reads of a prebuilt provider.
    peerDependencies: { cdktf: "^0.20.0 || ^0.21.0", constructs: "^10.3.0", [PROVIDER_PACKAGE]: version },
    peerDependenciesMeta: { [PROVIDER_PACKAGE]: { optional: true } },
    cdktf: { provider: { name: source, version } },
  };
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(staging, "README.md"),
    `# ${BINDINGS_PACKAGE}

cdktf constructs for the mgmt provider \`${source}\` ${version}, generated from the provider's schema.

\`\`\`sh
npm install /path/to/mgmt-cdktf-provider-mgmt-${version}.tgz /path/to/mgmt-provider-${version}.tgz
\`\`\`

\`\`\`ts
import { provider, sshKey } from "${BINDINGS_PACKAGE}";
// or one module: import { SshKey } from "${BINDINGS_PACKAGE}/lib/ssh-key";

new provider.MgmtProvider(this, "mgmt", {});
new sshKey.SshKey(this, "laptop", { label: "laptop", sshKey: "ssh-ed25519 AAAA... me@laptop" });
\`\`\`

The constructs only describe the configuration: the engine still needs the provider itself
(\`npx mgmt install-provider\` from ${PROVIDER_PACKAGE}). The repository's README has the whole set-up.
`,
  );
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
}
