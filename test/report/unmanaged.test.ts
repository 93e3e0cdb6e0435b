/**
 * Unmanaged objects: the pure matching, naming and import blocks, the cdktf module that imports them
 * (names against the binding generator, escaping, secrets, ids, layout, and that it compiles and
 * synthesizes), the drift report built on them, and the per-type table listing a real `mgmt serve`
 * (default fixtures, a second token acting).
 */
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack, Testing } from "cdktf";
import type { Construct } from "constructs";
import * as ts from "typescript";
import * as bindings from "../../generated/providers/mgmt";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { MgmtClient } from "../../src/client";
import { repoPath } from "../../src/harness/paths";
import { runProcess } from "../../src/harness/process";
import { providerDefinition } from "../../src/provider";
import { cdktfImportModule, configEntries, constructIds, tfStringLiteral, type ImportAttribute, type ImportSubject } from "../../src/report/import-cdktf";
import { importFormat } from "../../src/report/import-format";
import { attributeName, bindingNames, camelCase } from "../../src/report/import-names";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { driftReportJson, renderDriftMarkdown } from "../../src/report/drift-report";
import { FULL } from "../../src/report/truncate";
import { parsePlan } from "../../src/report/plan-model";
import { driftEntries } from "../../src/report/summary";
import { findUnmanaged, importBlocks, resourceName, type LiveObject } from "../../src/report/unmanaged";
import { tokenRole, UNMANAGED_TYPES } from "../../src/cli/unmanaged-types";
import { folds, runMgmt } from "./run-mgmt";
import { key, rc } from "./plans";

const types = (...names: string[]) => UNMANAGED_TYPES.filter((t) => names.includes(t.type));

describe("findUnmanaged", () => {
  const live = new Map<string, LiveObject[]>([
    [
      "mgmt_ssh_key",
      [
        { importId: "10", label: "managed" },
        { importId: "11", label: "Build Runner" },
        { importId: "12", label: "build runner" },
        { importId: "2", label: "" },
      ],
    ],
    [
      "mgmt_token",
      [
        { importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" },
        { importId: "5", label: "ci", role: "acting" },
        { importId: "6", label: "old laptop" },
        { importId: "7", label: "kept" },
      ],
    ],
    [
      "mgmt_tag",
      [
        { importId: "web", label: "web" },
        { importId: "prod", label: "prod" },
      ],
    ],
  ]);
  const state = [
    { address: "mgmt_ssh_key.build_runner", type: "mgmt_ssh_key", values: { id: "10" } },
    { address: "module.x.mgmt_token.kept", type: "mgmt_token", values: { id: "7" } },
    { address: "mgmt_tag.web", type: "mgmt_tag", values: { id: "web", label: "web" } },
  ];

  it("reports only what no state holds, names addresses that clash with nothing, and sets the expected tokens apart", () => {
    const r = findUnmanaged(types("mgmt_ssh_key", "mgmt_token", "mgmt_tag"), state, live);
    // Tokens first: the table lists them first, as live credentials.
    expect(r.unmanaged).toEqual([
      { type: "mgmt_token", importId: "6", label: "old laptop", to: "mgmt_token.old_laptop" },
      { type: "mgmt_ssh_key", importId: "2", label: "", to: "mgmt_ssh_key.ssh_key_2" },
      { type: "mgmt_ssh_key", importId: "11", label: "Build Runner", to: "mgmt_ssh_key.build_runner_2" },
      { type: "mgmt_ssh_key", importId: "12", label: "build runner", to: "mgmt_ssh_key.build_runner_3" },
      { type: "mgmt_tag", importId: "prod", label: "prod", to: "mgmt_tag.prod" },
    ]);
    expect(r.known).toEqual([
      { type: "mgmt_token", importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" },
      { type: "mgmt_token", importId: "5", label: "ci", role: "acting" },
    ]);
  });

  it("looks only at the types it is given", () => {
    expect(findUnmanaged(types("mgmt_tag"), state, live).unmanaged.map((u) => u.to)).toEqual(["mgmt_tag.prod"]);
  });

  it("derives resource names HCL accepts", () => {
    expect(resourceName("Alice's Laptop (2024)", "f")).toBe("alice_s_laptop_2024");
    expect(resourceName("9 lives", "ssh_key_4")).toBe("ssh_key_4_9_lives");
    expect(resourceName("ünïcödé", "f")).toBe("unicode");
    expect(resourceName("---", "f")).toBe("f");
    expect(resourceName("x".repeat(100), "f")).toHaveLength(48);
  });

  it("writes import blocks whose ids cannot be read as templates", () => {
    const hcl = importBlocks([{ type: "mgmt_tag", importId: 'a${b}%{c}"d', label: "odd\nlabel", to: "mgmt_tag.odd" }]);
    expect(hcl).toContain('# mgmt_tag "odd\\nlabel"\nimport {\n  to = mgmt_tag.odd\n  id = "a$${b}%%{c}\\"d"\n}\n');
    expect(hcl.split("\n").filter((l) => l.startsWith("#"))).toHaveLength(3);
  });
});

/** A resource's attributes as the provider declares them, as the CLI hands them to the module writer. */
function attributesOf(type: string): ImportAttribute[] {
  const resource = providerDefinition({}).resources.find((r) => r.typeName === type)!;
  return Object.entries(resource.attributes).map(([name, a]) => ({
    name,
    mode: a.mode,
    type: a.type,
    sensitive: a.sensitive,
    ...(a.default !== undefined ? { default: a.default } : {}),
  }));
}

const subject = (type: string, importId: string, label: string, values: Record<string, unknown>): ImportSubject => ({
  type,
  importId,
  label,
  attributes: attributesOf(type),
  values,
});

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0T5m1xJ0lB6T8y2oZ0qgqzq0P3dzP7iV9rPz0wB8f1 t@test";
const ODD = 'say "hi" \\ C:\\dir\nnext line ${var.x} %{ if true }';
const SUBJECTS: ImportSubject[] = [
  subject("mgmt_ssh_key", "11", ODD, { id: "11", label: ODD, ssh_key: KEY, created: "2026-01-01T00:00:00Z" }),
  subject("mgmt_ssh_key", "12", "Build Runner", { id: "12", label: "Build Runner", ssh_key: KEY, created: "2026-01-01T00:00:00Z" }),
  subject("mgmt_ssh_key", "13", "build runner", { id: "13", label: "build runner", ssh_key: KEY, created: "2026-01-01T00:00:00Z" }),
  subject("mgmt_token", "6", "old laptop", {
    id: "6",
    label: "old laptop",
    scopes: "account:read_only",
    expiry: "2027-01-01T00:00:00Z",
    expires_in: null,
    renew_before: null,
    token: null,
    created: "2026-01-01T00:00:00Z",
  }),
  subject("mgmt_oauth_client", "abc123", "Dashboard", {
    id: "abc123",
    label: "Dashboard",
    redirect_uri: "https://dashboard.example.com/oauth/callback",
    public: false,
    secret: null,
    secret_version: null,
    status: "active",
    thumbnail: null,
    thumbnail_url: null,
  }),
  subject("mgmt_oauth_client", "def456", "SPA", {
    id: "def456",
    label: "SPA",
    redirect_uri: "https://spa.example.com/",
    public: true,
    secret: null,
    secret_version: null,
    status: "active",
    thumbnail: null,
    thumbnail_url: null,
  }),
  subject("mgmt_tag", "web", "web", { id: "web", label: "web", computes: [3, 1], domains: null, volumes: [], nodebalancers: null }),
];

describe("import names", () => {
  // The generator's own case functions, from the codemaker it was published with.
  const fromGenerator = createRequire(require.resolve("@cdktf/provider-generator/lib/get/generator/models/attribute-model"));
  const { toCamelCase, toPascalCase } = fromGenerator("codemaker") as { toCamelCase(s: string): string; toPascalCase(s: string): string };
  const { escapeAttributeName } = fromGenerator("./attribute-model") as { escapeAttributeName(s: string): string };
  const resources = providerDefinition({}).resources;

  it("camel-cases every attribute of the provider's resources as the generator does", () => {
    const names = resources.flatMap((r) => Object.keys(r.attributes));
    const odd = ["a1b", "ipv6_address", "foo__bar", "foo_1", "x_2y_z", "_lead", "trail_", "get_thing", "node", "equals", "self", "import_from"];
    for (const name of [...names, ...odd]) {
      expect([name, camelCase(name)]).toEqual([name, toCamelCase(name)]);
      expect([name, attributeName(name)]).toEqual([name, escapeAttributeName(toCamelCase(name))]);
    }
    expect(toPascalCase("oauth_client")).toBe(bindingNames("mgmt_oauth_client", "mgmt").className);
  });

  it("names the namespace, class and config properties the generated bindings have", () => {
    const index = readFileSync(repoPath("generated/providers/mgmt/index.ts"), "utf8");
    for (const r of resources) {
      const { namespace, className } = bindingNames(r.typeName, "mgmt");
      const folder = index.match(new RegExp(`export \\* as ${namespace} from '\\./([a-z-]+)'`))?.[1];
      expect([r.typeName, folder]).toEqual([r.typeName, expect.any(String)]);
      const module = readFileSync(repoPath("generated/providers/mgmt", folder!, "index.ts"), "utf8");
      expect(module).toContain(`export class ${className} extends cdktf.TerraformResource`);
      expect(module).toContain(`static readonly tfResourceType = "${r.typeName}"`);
      for (const [name, a] of Object.entries(r.attributes)) {
        if (a.mode !== "computed") expect(module).toMatch(new RegExp(`readonly ${attributeName(name)}\\??: `));
      }
    }
    expect(bindingNames("mgmt_provider", "mgmt")).toEqual({ namespace: "providerResource", className: "ProviderResource" });
    expect(bindingNames("mgmt_index", "mgmt")).toEqual({ namespace: "indexResource", className: "Index" });
  });

  it("derives construct ids from type and label, unique and clear of the scope's names", () => {
    const ids = constructIds(
      [
        { type: "mgmt_ssh_key", importId: "1", label: "Build Runner" },
        { type: "mgmt_ssh_key", importId: "2", label: "build runner" },
        { type: "mgmt_token", importId: "3", label: "build runner" },
        { type: "mgmt_ssh_key", importId: "4", label: "9 lives" },
        { type: "mgmt_ssh_key", importId: "5", label: "---" },
        { type: "mgmt_oauth_client", importId: "AB-cd", label: "" },
        { type: "mgmt_tag", importId: "x", label: "ünïcödé" },
      ],
      "mgmt",
      ["ssh_key_build_runner", "laptop"],
    );
    expect(ids).toEqual([
      "ssh_key_build_runner_2",
      "ssh_key_build_runner_3",
      "token_build_runner",
      "ssh_key_9_lives",
      "ssh_key_5",
      "oauth_client_ab_cd",
      "tag_unicode",
    ]);
  });
});

describe("the cdktf import module", () => {
  const specifier = repoPath("generated/providers/mgmt");
  const text = cdktfImportModule(SUBJECTS, { bindings: specifier, provider: "mgmt", taken: ["laptop"] });

  it("writes string literals Terraform reads back as the text itself", () => {
    for (const s of ['"', "'", `'""`, "\\\"'", "\\", "\n\r\t", "${x}", "%{x}", "$${x}", "\u2028", "plain"]) {
      const literal = tfStringLiteral(s);
      // The TypeScript literal's value is what cdktf writes into the JSON; Terraform undoes the doubled $ and %.
      const value = new Function(`return ${literal};`)() as string;
      expect(value.replace(/\$\$\{/g, "${").replace(/%%\{/g, "%{")).toBe(s);
      expect(value).not.toMatch(/(^|[^$])\$\{/);
      expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
    }
    expect(text).toContain("label: 'say \"hi\" \\\\ C:\\\\dir\\nnext line $${var.x} %%{ if true }',");
    // The label in a comment stays on its line.
    expect(text).toContain('// mgmt_ssh_key "say \\"hi\\" \\\\ C:\\\\dir\\nnext line ${var.x} %{ if true }", id "11"');
  });

  it("sets required values and non-default optional ones, and leaves secrets out with a comment", () => {
    expect(text).toContain(
      '  new token.Token(scope, "token_old_laptop", {\n    label: "old laptop",\n    scopes: "account:read_only",\n    expiry: "2027-01-01T00:00:00Z",\n' +
        "    // token: a secret the API shows only when it is created; unset after the import.\n" +
        '  }).importFrom("6");',
    );
    // public is false by default: only the public client says so.
    expect(text).toContain('    redirectUri: "https://dashboard.example.com/oauth/callback",\n    // secret:');
    expect(text).toContain('    redirectUri: "https://spa.example.com/",\n    public: true,\n');
    // An unset list is left out, an empty one kept as state has it; a set keeps the order the import gave.
    expect(text).toContain('  new tag.Tag(scope, "tag_web", {\n    label: "web",\n    computes: [3, 1],\n    volumes: [],\n  }).importFrom("web");');
    expect(text.split("\n/** What each import above adopts")[0]).not.toMatch(/secretVersion|thumbnail|created:|status|expiresIn|domains/);
    expect(text).toContain(`import {\n  oauthClient,\n  sshKey,\n  tag,\n  token,\n} from "${specifier}";`);
    expect(cdktfImportModule(SUBJECTS, { bindings: "@mgmt/cdktf-provider-mgmt", provider: "mgmt" })).toContain(
      'import { oauthClient, sshKey, tag, token } from "@mgmt/cdktf-provider-mgmt";',
    );
    expect(text).toContain("export function importUnmanaged(scope: Construct): void {");
  });

  it("never writes a sensitive value, and comments out an object whose required value it cannot give", () => {
    const attributes: ImportAttribute[] = [
      { name: "label", mode: "required", type: "string", sensitive: false },
      { name: "password", mode: "required", type: "string", sensitive: true },
      { name: "pin", mode: "optional", type: "string", sensitive: true },
      { name: "note", mode: "required", type: "string", sensitive: false },
    ];
    expect(configEntries(attributes, { label: "a", password: "hunter2", pin: "1234", note: null }).map((e) => [e.kind, e.attribute.name])).toEqual([
      ["value", "label"],
      ["secret", "password"],
      ["secret", "pin"],
      ["missing", "note"],
    ]);
    const out = cdktfImportModule(
      [{ type: "mgmt_vault", importId: "9", label: "v", attributes, values: { label: "a", password: "hunter2", pin: "1234", note: null } }],
      { bindings: specifier, provider: "mgmt" },
    );
    expect(out).not.toMatch(/hunter2|1234/);
    expect(out).toContain('  // mgmt_vault "v", id "9": not imported.\n  // password, note are required and the API does not show them:');
    expect(out).toContain('  //   password: "FILL IN", // required; the API does not show it\n');
    // Nothing live uses the bindings, so neither they nor the scope are named.
    expect(out).not.toContain("import {");
    expect(out).toContain("export function importUnmanaged(_scope: Construct): void {");
    expect(cdktfImportModule([], { bindings: specifier, provider: "mgmt" })).toMatch(/export function importUnmanaged\(_scope: Construct\): void \{\}\n$/);
  });

  it("is laid out as prettier lays it out", async () => {
    // prettier's own CLI, default options: jest cannot load prettier 3's ESM core in process.
    const prettier = async (source: string) =>
      (await runProcess(repoPath("node_modules/.bin/prettier"), ["--no-config", "--stdin-filepath", "imports.ts"], { input: source })).stdout;
    const long = subject("mgmt_oauth_client", "z".repeat(20), "a label long enough to push the construct id past the line width", {
      label: "l",
      redirect_uri: "https://example.com/" + "x".repeat(70),
      public: true,
    });
    const tags = subject("mgmt_tag", "many", "many", { label: "many", computes: Array.from({ length: 40 }, (_, i) => i + 1) });
    const bulky = cdktfImportModule([...SUBJECTS, long, tags], { bindings: "@mgmt/cdktf-provider-mgmt-with-a-long-name/lib/index", provider: "mgmt" });
    for (const t of [text, bulky]) expect(await prettier(t)).toBe(t);
  });

  it("compiles under tsc --strict with unused names reported", () => {
    const vault: ImportSubject = {
      type: "mgmt_ssh_key",
      importId: "9",
      label: "no key",
      attributes: attributesOf("mgmt_ssh_key"),
      values: { label: "no key", ssh_key: null },
    };
    const file = repoPath("test/report/imports.generated.ts");
    const sources = new Map([
      [
        file,
        text +
          `\nexport function onlySkipped(): string {\n  return ${JSON.stringify(cdktfImportModule([vault], { bindings: specifier, provider: "mgmt" }))};\n}\n`,
      ],
    ]);
    const options: ts.CompilerOptions = {
      strict: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noImplicitReturns: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.CommonJS,
      skipLibCheck: true,
      noEmit: true,
      // A team's project has node's types (cdktf's template installs them): the adoption check uses node.
      types: ["node"],
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (name, ...rest) =>
      sources.has(name) ? ts.createSourceFile(name, sources.get(name)!, ts.ScriptTarget.ES2020) : getSourceFile.call(host, name, ...rest);
    host.fileExists = (name) => sources.has(name) || fileExists.call(host, name);
    host.readFile = (name) => sources.get(name) ?? readFile.call(host, name);
    const skippedOnly = repoPath("test/report/skipped.generated.ts");
    sources.set(skippedOnly, cdktfImportModule([vault], { bindings: specifier, provider: "mgmt" }));
    const program = ts.createProgram([file, skippedOnly], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
  });

  it("synthesizes the objects with their live values and an import block each", () => {
    const js = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 } }).outputText;
    const exports: { importUnmanaged?: (scope: Construct) => void } = {};
    const load = (id: string): unknown => (id === specifier ? bindings : require(id));
    new Function("require", "exports", js)(load, exports);
    const stack = new TerraformStack(Testing.app() as App, "s");
    new MgmtProvider(stack, "mgmt", {});
    exports.importUnmanaged!(stack);
    const json = JSON.parse(Testing.synth(stack)) as {
      import: { id: string; to: string }[];
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(json.resource.mgmt_ssh_key!.ssh_key_say_hi_c_dir_next_line_var_x_if_true).toEqual({
      label: 'say "hi" \\ C:\\dir\nnext line $${var.x} %%{ if true }',
      ssh_key: KEY,
    });
    expect(json.resource.mgmt_token!.token_old_laptop).toEqual({ label: "old laptop", scopes: "account:read_only", expiry: "2027-01-01T00:00:00Z" });
    expect(json.resource.mgmt_tag!.tag_web).toEqual({ label: "web", computes: [3, 1], volumes: [] });
    expect(json.import).toEqual(
      expect.arrayContaining([
        { id: "11", to: "mgmt_ssh_key.ssh_key_say_hi_c_dir_next_line_var_x_if_true" },
        { id: "12", to: "mgmt_ssh_key.ssh_key_build_runner" },
        { id: "13", to: "mgmt_ssh_key.ssh_key_build_runner_2" },
        { id: "6", to: "mgmt_token.token_old_laptop" },
        { id: "abc123", to: "mgmt_oauth_client.oauth_client_dashboard" },
        { id: "web", to: "mgmt_tag.tag_web" },
      ]),
    );
    expect(json.import).toHaveLength(SUBJECTS.length);
  });
});

describe("the --import-out format", () => {
  it("follows --import-format first, then the file's extension, and names both when it cannot tell", () => {
    expect(importFormat("imports.ts", undefined)).toEqual({ format: "cdktf" });
    expect(importFormat("main/IMPORTS.TS", undefined)).toEqual({ format: "cdktf" });
    expect(importFormat("imports.tf", undefined)).toEqual({ format: "hcl" });
    expect(importFormat("imports.tf", "cdktf")).toEqual({ format: "cdktf" });
    expect(importFormat("imports.ts", "hcl")).toEqual({ format: "hcl" });
    expect(importFormat("imports.txt", "hcl")).toEqual({ format: "hcl" });
    expect(importFormat("imports.txt", undefined)).toEqual({
      problem: expect.stringMatching(/\.ts file for cdktf.*\.tf file for HCL.*--import-format cdktf\|hcl/),
    });
    expect(importFormat("imports.ts", "json")).toEqual({ problem: "--import-format must be cdktf or hcl, not 'json'" });
  });

  it("is checked by the command before it runs anything, and --help documents it", async () => {
    const drift = async (...args: string[]) => {
      const r = await runMgmt(["drift", "--dir", repoPath("docs"), ...args]);
      return { code: r.code, stderr: r.stderr.trim() };
    };
    expect(await drift("--unmanaged", "--import-out", "imports.txt")).toEqual({
      code: 1,
      stderr:
        "mgmt drift: --import-out 'imports.txt': name a .ts file for cdktf code or a .tf file for HCL import blocks, or say which with --import-format cdktf|hcl",
    });
    expect(await drift("--unmanaged", "--import-out", "imports.ts", "--import-format", "yaml")).toEqual({
      code: 1,
      stderr: "mgmt drift: --import-format must be cdktf or hcl, not 'yaml'",
    });
    expect(await drift("--import-format", "cdktf")).toEqual({ code: 1, stderr: "mgmt drift: --import-format needs --import-out" });
    expect(await drift("--unmanaged", "--import-out", "imports.tf", "--bindings", "x")).toEqual({
      code: 1,
      stderr: "mgmt drift: --bindings applies to cdktf code (--import-out FILE.ts)",
    });
    // A module that already adopts objects is not replaced: its declarations keep them in the stack.
    const dir = mkdtempSync(join(tmpdir(), "mgmt-imports-"));
    try {
      const applied = join(dir, "imports.ts");
      writeFileSync(applied, cdktfImportModule(SUBJECTS.slice(0, 1), { bindings: "@mgmt/cdktf-provider-mgmt", provider: "mgmt" }));
      expect(await drift("--unmanaged", "--import-out", applied)).toEqual({
        code: 1,
        stderr: expect.stringContaining(`mgmt drift: ${applied} already declares objects to import`),
      });
      expect(readFileSync(applied, "utf8")).toContain(".importFrom(");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const help = (await runMgmt(["drift", "--help"])).stdout;
    for (const text of ["--import-format F", "--bindings MODULE", "importUnmanaged(scope: Construct)", "@mgmt/cdktf-provider-mgmt", ".tf  import {} blocks"]) {
      expect(help).toContain(text);
    }
  });
});

describe("tokenRole", () => {
  const acting = "abcdefghijklmnop-the-rest-of-the-token";
  it("recognises the acting token by the 16-character prefix the API shows, then the bootstrap token by its label", () => {
    expect(tokenRole({ label: "anything", token: "abcdefghijklmnop" }, acting)).toBe("acting");
    expect(tokenRole({ label: "mgmt serve 2026-11-23T15:00:00", token: "zzzzzzzzzzzzzzzz" }, acting)).toBe("bootstrap");
    expect(tokenRole({ label: "mgmt serve later", token: "zzzzzzzzzzzzzzzz" }, acting)).toBeUndefined();
    expect(tokenRole({ label: "ci", token: "abcdefghijklmnoX" }, acting)).toBeUndefined();
    expect(tokenRole({ label: "ci", token: "abc" }, "abc")).toBeUndefined();
  });
});

describe("drift report", () => {
  const refreshOnly = parsePlan({
    format_version: "1.2",
    resource_drift: [
      rc("mgmt_ssh_key.a", ["update"], {
        before: { ...key(1, "a"), label: "SECRET-label" },
        after: key(1, "by hand"),
        beforeSensitive: { label: true },
        afterSensitive: {},
      }),
      rc("mgmt_ssh_key.b", ["delete"], { before: key(2, "b") }),
    ],
  });
  const unmanaged = findUnmanaged(
    types("mgmt_ssh_key", "mgmt_token"),
    [],
    new Map([
      ["mgmt_ssh_key", [{ importId: "3", label: "stray" }]],
      ["mgmt_token", [{ importId: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" as const }]],
    ]),
  );

  it("lists changed, deleted and unmanaged objects and the tokens it did not count", () => {
    const r = { drift: driftEntries(refreshOnly, "all"), unmanaged };
    const md = renderDriftMarkdown(r, FULL);
    expect(md).toContain("**1 changed outside of Terraform, 1 deleted outside of Terraform, 1 unmanaged**");
    const f = folds(md);
    expect(f["Changed outside of Terraform, state → live"]).toContain('- `mgmt_ssh_key.a`\n  - `label`: `(sensitive)` → `"by hand"`');
    expect(f["Deleted outside of Terraform"]).toContain("- `mgmt_ssh_key.b`");
    expect(f["Not managed by any state"]).toContain('- id `3` `"stray"` → import as `mgmt_ssh_key.stray`');
    expect(md).toContain('- `mgmt_token` id `1` `"mgmt serve 2026-01-01T00:00:00"`: the token `mgmt serve` minted at start');
    expect(md).not.toContain("SECRET-label");
    expect(driftReportJson(r)).toEqual({
      format_version: 1,
      summary: { drifted: 1, deleted: 1, unmanaged: 1 },
      drift: [
        { address: "mgmt_ssh_key.a", type: "mgmt_ssh_key", actions: ["update"], attributes: ["label"] },
        { address: "mgmt_ssh_key.b", type: "mgmt_ssh_key", actions: ["delete"], attributes: [] },
      ],
      unmanaged: [{ type: "mgmt_ssh_key", id: "3", label: "stray", to: "mgmt_ssh_key.stray" }],
      known: [{ type: "mgmt_token", id: "1", label: "mgmt serve 2026-01-01T00:00:00", role: "bootstrap" }],
      has_drift: true,
    });
  });

  it("says so when there is nothing", () => {
    const quiet = { drift: [], unmanaged: findUnmanaged(types("mgmt_ssh_key"), [], new Map()) };
    expect(renderDriftMarkdown(quiet, FULL)).toContain("**No drift** and no unmanaged objects.");
    expect(driftReportJson(quiet)).toMatchObject({ summary: { drifted: 0, deleted: 0, unmanaged: 0 }, has_drift: false });
    expect(renderDriftMarkdown({ drift: [] }, FULL, "Drift: prod")).toBe("## Drift: prod\n\n**No drift.**\n");
  });
});

describe("the per-type table against mgmt serve", () => {
  let server: RunningServer;
  let client: MgmtClient;
  let acting: string;

  beforeAll(async () => {
    server = await startServe();
    const boot = new MgmtClient({ url: server.url, token: server.token });
    acting = (await boot.createToken({ label: "ci" })).token;
    await boot.close();
    client = new MgmtClient({ url: server.url, token: acting });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const list = async (type: string) => UNMANAGED_TYPES.find((t) => t.type === type)!.list({ client, actingToken: acting });

  it("lists the acting user's SSH keys with their ids", async () => {
    const made = await client.createSshKey({
      label: "made here",
      ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0T5m1xJ0lB6T8y2oZ0qgqzq0P3dzP7iV9rPz0wB8f1 t@test",
    });
    const keys = await list("mgmt_ssh_key");
    expect(keys).toContainEqual({ importId: String(made.id), label: "made here" });
    // The default fixtures give the bootstrap user one key; other users' keys are not listed.
    expect(keys.map((k) => k.label).sort()).toEqual(["build runner", "made here"]);
  });

  it("marks the bootstrap token and the acting token, and nothing else", async () => {
    const tokens = await list("mgmt_token");
    expect(tokens.map((t) => [t.role, t.role === "bootstrap" ? t.label.replace(/ \d{4}-.*$/, " <time>") : t.label]).sort()).toEqual([
      ["acting", "ci"],
      ["bootstrap", "mgmt serve <time>"],
    ]);
  });

  it("lists OAuth clients by id and tags by label", async () => {
    expect((await list("mgmt_oauth_client")).map((c) => c.label).sort()).toEqual(["Nightly Backup", "Status Dashboard"]);
    const tags = await list("mgmt_tag");
    expect(tags.length).toBeGreaterThan(0);
    for (const t of tags) expect(t.importId).toBe(t.label);
    expect(tags.map((t) => t.label)).toEqual(expect.arrayContaining(["production", "web", "staging"]));
  });
});
