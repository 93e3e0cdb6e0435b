/** @tier unit */
/**
 * The layer rules of eslint.config.mjs (docs/architecture.md, "Layers"; src/server/README.md): each import a
 * layer may not make is linted as a small fixture and must fail with its rule's message, so a rule
 * removed or loosened fails here; imports the layers may make must pass, so a rule drawn too wide
 * fails too. The fixtures are virtual files under src/<layer>/, bench/ and testkit/ (nothing is written there), and
 * one real import cycle in ./fixtures, which `npm run lint` skips.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

interface Case {
  filePath: string;
  code?: string;
}
interface Message {
  ruleId: string | null;
  message: string;
}

const ROOT = join(__dirname, "../..");

/** A file at `file` importing `specifier` (as a type only, if `type`) and using what it imports. */
const importing = (file: string, specifier: string, type = false): Case => {
  const kw = type ? "type " : "";
  return { filePath: join(ROOT, file), code: `import ${kw}{ layered } from "${specifier}";\nexport ${kw}{ layered };\n` };
};

const CONTRACT = "layers: the contract imports only zod, node: built-ins and other contract files";
const CLIENT = "layers: the client imports only the contract, undici, zod and node: built-ins";
const PROVIDER = "layers: the provider imports the client and the contract, never the plugin, server, cli, harness or report";
const PROVIDER_VALUES = "layers: the provider takes values only from the zod-free modules of the client and the contract";
const PLUGIN = "layers: the plugin imports from the provider only its framework (src/provider/framework)";
const REPORT = "layers: report is pure rendering";
const POLICY = "layers: policy imports only the contract's zod-free modules";
const DOMAIN = "layers: the server's domain never imports HTTP (src/server/http or fastify) or admin";
const DOMAIN_AREAS = "layers: the server's domain is the kernel below the areas and never imports one";
const AUTH = "layers: the server's auth (who the caller is, what their grants allow) is below the areas and imports no area, HTTP or admin";
const HTTP = "layers: HTTP's kernel knows no area, store or admin";
const AREA_STORE = "layers: an area's store.ts imports kysely, the store kernel, the domain's records and other areas' store.ts";
const AREA_ROUTES = "layers: an area's routes never import admin or the store kernel";
const AREA_RECORDS = "layers: an area's routes take records from store.ts as types only";
const AREA_DOOR = "layers: an area imports another area only through its index.ts (`../<area>`) or, for tables and repositories, its store.ts";
const AREA_SERVICE = "layers: an area's services never import HTTP (src/server/http or fastify), admin or routes";
const HARNESS = "layers: the harness starts the parts as processes";
const STORE = "layers: the store kernel imports only kysely, the database drivers and node: built-ins";
const ADMIN = "layers: admin is part of the server";
const FIXTURES = "layers: fixtures seed the store through the areas";
const THROUGHPUT = "layers: the store's throughput machinery imports only kysely, the database drivers, node: built-ins and the kernel's store.ts";
/** Seen by path (import-x/no-restricted-paths), not by specifier: every layer, however it names the file. */
const THROUGHPUT_DOOR = "layers: the store's throughput machinery is imported through its index (src/server/store/throughput), never a file behind it";
const CLI_SERVER = "layers: the cli starts the server through its public index (src/server/index.ts), never its internals";
const CLI_PLUGIN = "layers: the cli runs the plugin as a process";
/** Seen by path too: nothing in src/ but the cli itself imports the cli. */
const CLI_IMPORTED = "layers: nothing in src/ imports the cli, the top layer";
const BENCH = "layers: a benchmark imports src/, testkit/ and other benchmarks, never a test file (test/)";
const TESTKIT = "layers: testkit is what tests and benchmarks share: it imports src/ and packages, never test/ or bench/";
/** Seen by path too: what ships imports no test, benchmark or testkit file. */
const SHIPPED = "layers: src/ is what ships: it imports nothing of the tests, the benchmarks or testkit/";
const BY_PATH = new Set([THROUGHPUT_DOOR, CLI_IMPORTED, SHIPPED]);
const ruleOf = (message: string): string => (BY_PATH.has(message) ? "import-x/no-restricted-paths" : "no-restricted-imports");

/** [rule's message, importing file, specifier, type-only import]: each must be refused. */
const REFUSED: Array<[string, string, string, boolean]> = [
  [CONTRACT, "src/contract/fixture.ts", "../client", false],
  [CONTRACT, "src/contract/fixture.ts", "../server/store/store", true],
  [CONTRACT, "src/contract/fixture.ts", "undici", false],
  [CLIENT, "src/client/fixture.ts", "../provider/framework/server", true],
  [CLIENT, "src/client/fixture.ts", "../server", false],
  [PROVIDER, "src/provider/fixture.ts", "../plugin/serve", false],
  [PROVIDER, "src/provider/resources/fixture.ts", "../../server/store/store", true],
  [PROVIDER, "src/provider/resources/fixture.ts", "../../cli/main", false],
  [PROVIDER, "src/provider/fixture.ts", "../harness/engine", false],
  [PROVIDER, "src/provider/fixture.ts", "../report/summary", true],
  [PROVIDER_VALUES, "src/provider/resources/fixture.ts", "../../client", false],
  [PROVIDER_VALUES, "src/provider/datasources/fixture.ts", "../../client/http", false],
  [PROVIDER_VALUES, "src/provider/fixture.ts", "../contract", false],
  [PROVIDER_VALUES, "src/provider/resources/fixture.ts", "../../contract/tokens", false],
  [PLUGIN, "src/plugin/fixture.ts", "../provider/resources/token", false],
  [PLUGIN, "src/plugin/fixture.ts", "../provider", true],
  [PLUGIN, "src/plugin/fixture.ts", "../client", false],
  [PLUGIN, "src/plugin/codec/fixture.ts", "../../contract", true],
  [PLUGIN, "src/plugin/grpc/fixture.ts", "../../server", false],
  [REPORT, "src/report/fixture.ts", "../provider", true],
  [REPORT, "src/report/fixture.ts", "../client", false],
  [REPORT, "src/report/fixture.ts", "../server/http/present", false],
  [POLICY, "src/policy/fixture.ts", "../contract/tokens", false],
  [POLICY, "src/policy/fixture.ts", "../contract", true],
  [POLICY, "src/policy/fixture.ts", "zod", false],
  [POLICY, "src/policy/fixture.ts", "../client/retry", false],
  [POLICY, "src/policy/fixture.ts", "../provider/identity", false],
  [POLICY, "src/policy/fixture.ts", "../report/summary", false],
  [DOMAIN, "src/server/domain/fixture.ts", "../http/router", true],
  [DOMAIN, "src/server/domain/fixture.ts", "../admin/context", false],
  [DOMAIN, "src/server/domain/fixture.ts", "fastify", false],
  [DOMAIN, "src/server/domain/fixture.ts", "fastify", true],
  [DOMAIN, "src/server/domain/fixture.ts", "@fastify/cors", false],
  [DOMAIN_AREAS, "src/server/domain/fixture.ts", "../areas/profile/store", true],
  [DOMAIN_AREAS, "src/server/domain/fixture.ts", "../areas", false],
  [AUTH, "src/server/auth/fixture.ts", "../areas/tokens/store", true],
  [AUTH, "src/server/auth/fixture.ts", "../areas", false],
  [AUTH, "src/server/auth/fixture.ts", "../http/router", false],
  [AUTH, "src/server/auth/fixture.ts", "fastify", true],
  [HTTP, "src/server/http/fixture.ts", "../admin/install", false],
  [HTTP, "src/server/http/fixture.ts", "../store/store", true],
  [HTTP, "src/server/http/fixture.ts", "../areas", false],
  [HTTP, "src/server/http/fixture.ts", "../areas/sshkeys/routes", true],
  [AREA_STORE, "src/server/areas/sshkeys/store.ts", "./service", true],
  [AREA_STORE, "src/server/areas/sshkeys/store.ts", "../../domain/context", true],
  [AREA_STORE, "src/server/areas/sshkeys/store.ts", "../../http/router", false],
  [AREA_ROUTES, "src/server/areas/sshkeys/routes.ts", "../../store/store", true],
  [AREA_ROUTES, "src/server/areas/sshkeys/routes.ts", "../../admin/context", false],
  [AREA_RECORDS, "src/server/areas/sshkeys/routes.ts", "./store", false],
  [AREA_RECORDS, "src/server/areas/account/routes.ts", "../tokens/store", false],
  [AREA_SERVICE, "src/server/areas/sshkeys/service.ts", "../../http/present", true],
  [AREA_SERVICE, "src/server/areas/sshkeys/service.ts", "./routes", false],
  [AREA_SERVICE, "src/server/areas/account/child-accounts.ts", "../tokens/routes", true],
  [AREA_SERVICE, "src/server/areas/tags/objects.ts", "../../admin/context", false],
  [AREA_SERVICE, "src/server/areas/sshkeys/service.ts", "fastify", true],
  [AREA_DOOR, "src/server/areas/sshkeys/service.ts", "../events/service", false],
  [AREA_DOOR, "src/server/areas/account/child-accounts.ts", "../profile/users", false],
  [AREA_DOOR, "src/server/areas/oauth/service.ts", "../tokens/service", true],
  [AREA_DOOR, "src/server/areas/account/logins-routes.ts", "../sessions/routes", false],
  [AREA_DOOR, "src/server/areas/oauth/index.ts", "../tokens/service", true],
  [AREA_DOOR, "src/server/areas/tags/service.ts", "../account/billing-store", true],
  [HARNESS, "src/harness/fixture.ts", "../server", false],
  [HARNESS, "src/harness/fixture.ts", "../provider", true],
  [HARNESS, "src/harness/fixture.ts", "../client", false],
  [STORE, "src/server/store/fixture.ts", "../areas/sshkeys/store", true],
  [STORE, "src/server/store/fixture.ts", "../domain/context", false],
  [STORE, "src/server/store/fixture.ts", "zod", false],
  [ADMIN, "src/server/admin/fixture.ts", "../../client", false],
  [ADMIN, "src/server/admin/fixture.ts", "../../cli/serve", true],
  [FIXTURES, "src/server/fixtures/fixture.ts", "../http/router", false],
  [FIXTURES, "src/server/fixtures/sections/fixture.ts", "../../admin/context", true],
  [FIXTURES, "src/server/fixtures/fixture.ts", "fastify", false],
  [THROUGHPUT, "src/server/store/throughput/fixture.ts", "../postgres", false],
  [THROUGHPUT, "src/server/store/throughput/fixture.ts", "../../areas/events/store", true],
  [THROUGHPUT_DOOR, "src/server/store/postgres.ts", "./throughput/named-statements", false],
  [THROUGHPUT_DOOR, "src/server/areas/sshkeys/store.ts", "../../store/throughput/prepared", false],
  [THROUGHPUT_DOOR, "src/server/domain/fixture.ts", "../store/throughput/id-blocks", true],
  [CLI_SERVER, "src/cli/fixture.ts", "../server/store/postgres", false],
  [CLI_SERVER, "src/cli/init/fixture.ts", "../../server/logger", true],
  [CLI_PLUGIN, "src/cli/fixture.ts", "../plugin/serve", false],
  [CLI_IMPORTED, "src/server/fixture.ts", "../cli/serve", false],
  [CLI_IMPORTED, "src/server/areas/sshkeys/service.ts", "../../../cli/args", true],
  [CLI_IMPORTED, "src/provider/resources/fixture.ts", "../../cli/main", false],
  [BENCH, "bench/fixture.ts", "../test/client/scripted-server", false],
  [BENCH, "bench/fixture.ts", "../test/support/images", true],
  [TESTKIT, "testkit/fixture.ts", "../test/support/images", true],
  [TESTKIT, "testkit/fixture.ts", "../bench/local-api", false],
  [SHIPPED, "src/provider/fixture.ts", "../../testkit/ssh-keys", false],
  [SHIPPED, "src/cli/fixture.ts", "../../test/support/images", true],
  [SHIPPED, "src/server/areas/sshkeys/service.ts", "../../../../bench/local-api", false],
];

/** [importing file, specifier, type-only import]: imports the layers make, each allowed. */
const ALLOWED: Array<[string, string, boolean?]> = [
  ["src/contract/fixture.ts", "zod"],
  ["src/contract/fixture.ts", "node:crypto"],
  ["src/contract/fixture.ts", "./common"],
  ["src/client/fixture.ts", "../contract/tokens"],
  ["src/client/fixture.ts", "undici"],
  ["src/client/fixture.ts", "./retry"],
  ["src/client/fixture.ts", "../../package.json"],
  ["src/provider/resources/fixture.ts", "../../client", true],
  ["src/provider/resources/fixture.ts", "../../client/create-once"],
  ["src/provider/resources/fixture.ts", "../../contract/tokens", true],
  ["src/provider/resources/fixture.ts", "../../contract/field-rules"],
  ["src/provider/fixture.ts", "../client/errors"],
  ["src/provider/resources/fixture.ts", "../framework/server"],
  ["src/plugin/fixture.ts", "../provider/framework/server"],
  ["src/plugin/codec/fixture.ts", "../../provider/framework/value"],
  ["src/plugin/fixture.ts", "protobufjs"],
  ["src/report/fixture.ts", "./md"],
  ["src/policy/fixture.ts", "../contract/scopes"],
  ["src/policy/fixture.ts", "../report/plan-model"],
  ["src/policy/fixture.ts", "./rules"],
  ["src/policy/fixture.ts", "cdktf"],
  ["src/server/domain/fixture.ts", "../store/store"],
  ["src/server/domain/fixture.ts", "../../contract"],
  ["src/server/auth/fixture.ts", "../domain/records", true],
  ["src/server/auth/fixture.ts", "../../contract"],
  ["src/server/http/fixture.ts", "../domain/context"],
  ["src/server/http/fixture.ts", "./router"],
  ["src/server/http/fixture.ts", "fastify"],
  ["src/server/areas/sshkeys/routes.ts", "fastify", true],
  ["src/server/domain/fixture.ts", "../store/fastify-free"],
  ["src/server/areas/sshkeys/store.ts", "kysely"],
  ["src/server/areas/sshkeys/store.ts", "../../store/throughput"],
  ["src/server/store/sqlite.ts", "./throughput"],
  ["src/server/store/throughput/named-statements.ts", "./deferred-begin"],
  ["src/server/store/throughput/prepared.ts", "../store", true],
  ["src/server/areas/tokens/store.ts", "../profile/store"],
  ["src/server/areas/tokens/store.ts", "../../domain/records", true],
  ["src/server/domain/fixture.ts", "./records", true],
  ["src/server/areas/sshkeys/service.ts", "./store"],
  ["src/server/areas/sshkeys/service.ts", "../events"],
  ["src/server/areas/sshkeys/service.ts", "../events/store", true],
  ["src/server/areas/account/logins-routes.ts", "../sessions"],
  ["src/server/areas/oauth/index.ts", "../tokens", true],
  ["src/server/areas/oauth/index.ts", "../profile/store", true],
  ["src/server/areas/sshkeys/service.ts", "../../auth/grants"],
  ["src/server/areas/sshkeys/service.ts", "../../domain/event-entities"],
  ["src/server/areas/sshkeys/service.ts", "../../domain/context"],
  ["src/server/areas/sshkeys/routes.ts", "../../http/router"],
  ["src/server/areas/sshkeys/routes.ts", "./service"],
  ["src/server/areas/sshkeys/index.ts", "./routes"],
  ["src/server/admin/fixture.ts", "../http/router"],
  ["src/server/admin/fixture.ts", "../store/store"],
  ["src/harness/fixture.ts", "../provider/identity"],
  ["src/harness/fixture.ts", "./paths"],
  ["src/harness/fixture.ts", "pg"],
  ["src/server/store/fixture.ts", "kysely"],
  ["src/server/store/fixture.ts", "better-sqlite3"],
  ["src/server/store/fixture.ts", "./store"],
  ["src/server/fixtures/fixture.ts", "../areas"],
  ["src/server/fixtures/fixture.ts", "../../contract"],
  ["src/cli/fixture.ts", "../server"],
  ["src/cli/fixture.ts", "../provider/framework/provider-server"],
  ["src/cli/fixture.ts", "../harness/engine"],
  ["src/cli/init/fixture.ts", "../args"],
  ["bench/fixture.ts", "../src/server"],
  ["bench/fixture.ts", "../testkit/plugin-harness"],
  ["bench/fixture.ts", "./local-api"],
  ["testkit/fixture.ts", "../src/plugin/codec"],
  ["testkit/fixture.ts", "@grpc/grpc-js"],
];

const CYCLE: Case = { filePath: join(ROOT, "test/lint/fixtures/cycle/a.ts") };

let results: Message[][];

beforeAll(() => {
  const cases = [
    ...REFUSED.map(([, file, specifier, type]) => importing(file, specifier, type)),
    ...ALLOWED.map(([file, specifier, type]) => importing(file, specifier, type)),
    CYCLE,
  ];
  results = JSON.parse(execFileSync(process.execPath, [join(__dirname, "lint.mjs")], { input: JSON.stringify(cases), encoding: "utf8", timeout: 120_000 }));
}, 130_000);

test.each(REFUSED.map((c, i) => [...c, i] as const))("%s: %s importing %s (type only: %s)", (rule, _file, _specifier, _type, i) => {
  // The rule's own message; an import two rules refuse (a layer's rule and "nothing imports the cli") may have both.
  expect(results[i]).toContainEqual({ ruleId: ruleOf(rule), message: expect.stringContaining(rule) });
  // Each message points at the doc that explains the layers, one the repository holds.
  for (const { message } of results[i]!) expect(message).toContain("(see docs/architecture.md, Layers)");
});

test.each(ALLOWED.map(([file, specifier, type], i) => [file, specifier, type === true, REFUSED.length + i] as const))(
  "allowed: %s importing %s (type only: %s)",
  (_file, _specifier, _type, i) => {
    expect(results[i]).toEqual([]);
  },
);

test("import-x/no-cycle refuses an import cycle", () => {
  expect(results[REFUSED.length + ALLOWED.length]).toEqual([{ ruleId: "import-x/no-cycle", message: expect.stringContaining("Dependency cycle detected") }]);
});
