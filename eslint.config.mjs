import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

/*
 * Layers (docs/architecture.md, "Layers"; summed up in src/server/README.md): each folder imports only the
 * layers below it, proven by test/lint/layers.test.ts. The rules read import and export specifiers
 * as written, `import type` included (require(), import() and `typeof import()` are not seen), so a
 * folder is named by climbing to it: `../server`, `../../plugin/x`. A file matches one layer's block
 * at most, since a later `no-restricted-imports` replaces an earlier one rather than adding to it.
 */
const SEE = "(see docs/architecture.md, Layers)";
/** A specifier that climbs out to one of the folders `names`: `../server`, `../../plugin/x`. */
const climbsTo = (...names) => `^(?:\\.\\./)+(?:${names.join("|")})(?:/|$)`;
/** Any specifier but the whole-specifier regexes `allowed`. */
const anyBut = (...allowed) => `^(?!(?:${allowed.join("|")})$)`;
/** A file of the importer's own folder or below it: `./x`, `./x/y`, never `..`. */
const OWN_FOLDER = "\\./(?![^]*\\.\\.)[^]*";
const NODE = "node:[^]+";
/** The HTTP framework, which only src/server/http, admin, the areas' routes and the composition root may load. */
const FASTIFY = "^(?:fastify|@fastify/[^/]+)(?:/|$)";
/** Modules of the client and the contract that load no zod, which the provider may import values from. */
const ZOD_FREE = ["errors", "retry", "paginate", "create-once", "field-rules", "enums", "timestamps", "scopes", "sshkey-format", "filterable"];
/**
 * Another area's internals: `../<area>/<file>` but its store.ts. An area offers the others its index.ts (`../<area>`: its
 * services by type, its views, the recording of events) and, for the tables and repositories they read, its store.ts.
 */
const AREA_DOOR = {
  regex: "^\\.\\./[a-z-]+/(?!store$)[^]+",
  message: `layers: an area imports another area only through its index.ts (\`../<area>\`) or, for tables and repositories, its store.ts ${SEE}`,
};
const layer = (files, ...patterns) => ({ files, rules: { "no-restricted-imports": ["error", { patterns }] } });

export default tseslint.config(
  // test/lint/fixtures holds files that break the layer rules on purpose (test/lint/layers.test.ts lints them).
  { ignores: ["node_modules/", "dist/", "generated/", "src/plugin/proto/gen/", "bin/", "**/cdktf.out/", ".gen/", "coverage/", ".tmp/", "test/lint/fixtures/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        require: "readonly",
        module: "writable",
        __dirname: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        URL: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  layer(["src/contract/**"], {
    regex: anyBut("zod", NODE, OWN_FOLDER),
    message: `layers: the contract imports only zod, node: built-ins and other contract files ${SEE}`,
  }),
  layer(["src/client/**"], {
    // package.json gives the User-Agent its version.
    regex: anyBut("zod", "undici", NODE, OWN_FOLDER, "\\.\\./contract(?:/[^]*)?", "\\.\\./\\.\\./package\\.json"),
    message: `layers: the client imports only the contract, undici, zod and node: built-ins ${SEE}`,
  }),
  layer(
    ["src/provider/**"],
    {
      regex: climbsTo("plugin", "server", "cli", "harness", "report"),
      message: `layers: the provider imports the client and the contract, never the plugin, server, cli, harness or report ${SEE}`,
    },
    {
      // The modules that load zod (the client's HTTP and index, the contract's schemas) load on
      // ConfigureProvider, through config.ts's import(): an engine start that only validates never
      // reads zod (test/plugin/bundles.test.ts).
      regex: `^(?:\\.\\./)+(?:client|contract)(?:/(?!(?:${ZOD_FREE.join("|")})$)[^]*)?$`,
      allowTypeImports: true,
      message: `layers: the provider takes values only from the zod-free modules of the client and the contract (${ZOD_FREE.join(", ")}), types from any ${SEE}`,
    },
  ),
  layer(["src/plugin/**"], {
    regex: climbsTo("provider(?!/framework(?:/|$))", "client", "contract", "server", "cli", "harness", "report"),
    message: `layers: the plugin imports from the provider only its framework (src/provider/framework), nothing of the API ${SEE}`,
  }),
  layer(["src/report/**"], {
    regex: climbsTo("client", "provider", "plugin", "server", "cli", "harness"),
    message: `layers: report is pure rendering and imports no client, provider, plugin, server, cli or harness ${SEE}`,
  }),
  layer(["src/policy/**"], {
    // The rules also run at synth, in the bindings package (aspect.ts, the one file that loads cdktf): no zod, nothing of the API's machinery.
    regex: anyBut(NODE, OWN_FOLDER, "cdktf", "constructs", `\\.\\./contract/(?:${ZOD_FREE.join("|")})`, "\\.\\./report/plan-model"),
    message: `layers: policy imports only the contract's zod-free modules (${ZOD_FREE.join(", ")}), the report's plan model, and cdktf for its Aspect ${SEE}`,
  }),
  layer(
    ["src/cli/**"],
    {
      // The top layer wires the parts: it may import any of them, but the server only as a whole.
      regex: "^(?:\\.\\./)+server/[^]+",
      message: `layers: the cli starts the server through its public index (src/server/index.ts), never its internals ${SEE}`,
    },
    {
      regex: climbsTo("plugin"),
      message: `layers: the cli runs the plugin as a process (the engines start it; mgmt warm spawns it), never imports it ${SEE}`,
    },
  ),
  layer(["src/harness/**"], {
    // Servers, engines and the provider run as processes: the harness names them, it does not load them.
    regex: anyBut(NODE, OWN_FOLDER, "pg", "\\.\\./provider/identity"),
    message: `layers: the harness starts the parts as processes and imports only node: built-ins, pg and the provider's identity ${SEE}`,
  }),
  layer(["src/server/store/*.ts"], {
    regex: anyBut("kysely", "pg", "better-sqlite3", NODE, OWN_FOLDER),
    message: `layers: the store kernel imports only kysely, the database drivers and node: built-ins, nothing of the areas, domain, HTTP or admin ${SEE}`,
  }),
  layer(["src/server/store/throughput/**"], {
    // prepared.ts takes a Handle from the kernel's store.ts; the stores that use the machinery are above it.
    regex: anyBut("kysely", "pg", "better-sqlite3", NODE, OWN_FOLDER, "\\.\\./store"),
    message: `layers: the store's throughput machinery imports only kysely, the database drivers, node: built-ins and the kernel's store.ts, never the stores that use it ${SEE}`,
  }),
  layer(["src/server/admin/**"], {
    regex: climbsTo("client", "provider", "plugin", "cli", "harness", "report", "policy"),
    message: `layers: admin is part of the server and imports nothing of the client, provider, plugin, cli, harness, report or policy ${SEE}`,
  }),
  layer(["src/server/fixtures/**"], {
    regex: `${climbsTo("http", "admin")}|${FASTIFY}`,
    message: `layers: fixtures seed the store through the areas and never import HTTP (src/server/http or fastify) or admin ${SEE}`,
  }),
  layer(
    ["src/server/domain/**"],
    {
      regex: `${climbsTo("http", "admin")}|${FASTIFY}`,
      message: `layers: the server's domain never imports HTTP (src/server/http or fastify) or admin; the composition root (src/server/index.ts) wires them ${SEE}`,
    },
    {
      // The kernel's own records (Actor's user and token) live in ./records.ts; the areas build on it.
      regex: climbsTo("areas"),
      message: `layers: the server's domain is the kernel below the areas and never imports one; the records it needs are its own (src/server/domain/records.ts) ${SEE}`,
    },
  ),
  layer(["src/server/auth/**"], {
    // Authentication and grants read several areas' records; they name the reads they make and import none of them.
    regex: `${climbsTo("http", "admin", "areas")}|${FASTIFY}`,
    message: `layers: the server's auth (who the caller is, what their grants allow) is below the areas and imports no area, HTTP or admin ${SEE}`,
  }),
  layer(["src/server/http/**"], {
    regex: climbsTo("admin", "store", "areas"),
    message: `layers: HTTP's kernel knows no area, store or admin: the composition root (src/server/index.ts) registers the areas' routes and installs admin ${SEE}`,
  }),
  // An area (src/server/areas/<area>/): store.ts (and a sub-area's <sub>-store.ts) holds tables and queries, the services the rules, routes.ts (and <sub>-routes.ts) the HTTP.
  layer(["src/server/areas/*/store.ts", "src/server/areas/*/*-store.ts"], {
    regex: anyBut("kysely", NODE, "\\.\\./\\.\\./store/[^]*", "\\.\\./\\.\\./domain/records", "\\.\\./[a-z-]+/store", "\\./[a-z-]+-store"),
    message: `layers: an area's store.ts imports kysely, the store kernel, the domain's records and other areas' store.ts, never services, routes, HTTP or the rest of the domain ${SEE}`,
  }),
  layer(
    ["src/server/areas/*/routes.ts", "src/server/areas/*/*-routes.ts"],
    {
      regex: climbsTo("admin", "store"),
      message: `layers: an area's routes never import admin or the store kernel ${SEE}`,
    },
    {
      regex: "(?:^\\.|/[a-z-]+)/(?:[a-z-]+-)?store$",
      allowTypeImports: true,
      message: `layers: an area's routes take records from store.ts as types only; queries run in its services ${SEE}`,
    },
    AREA_DOOR,
  ),
  {
    ...layer(
      ["src/server/areas/*/*.ts"],
      {
        regex: `${climbsTo("http", "admin")}|(?:^\\.|/[a-z-]+)/(?:routes|index)$|${FASTIFY}`,
        message: `layers: an area's services never import HTTP (src/server/http or fastify), admin or routes ${SEE}`,
      },
      AREA_DOOR,
    ),
    // store.ts and routes.ts have their own rules; index.ts composes the area.
    ignores: [
      "src/server/areas/*/store.ts",
      "src/server/areas/*/*-store.ts",
      "src/server/areas/*/routes.ts",
      "src/server/areas/*/*-routes.ts",
      "src/server/areas/*/index.ts",
    ],
  },
  // index.ts composes the area from its own files; what it takes of another area comes through that area's door too.
  layer(["src/server/areas/*/index.ts"], AREA_DOOR),
  // Outside src/: the benchmarks and the tests share testkit/, and a benchmark never imports a test file.
  layer(["bench/**"], {
    regex: climbsTo("test"),
    message: `layers: a benchmark imports src/, testkit/ and other benchmarks, never a test file (test/); what both need lives in testkit/ ${SEE}`,
  }),
  layer(["testkit/**"], {
    regex: climbsTo("test", "bench"),
    message: `layers: testkit is what tests and benchmarks share: it imports src/ and packages, never test/ or bench/ ${SEE}`,
  }),
  {
    // By path, so every layer and every way of naming a file is seen: the store's throughput machinery has one
    // door, its index.ts; the cli is imported by nothing in src/; src/ imports nothing outside it but packages.
    files: ["src/**/*.ts"],
    ignores: ["src/server/store/throughput/**"],
    plugins: { "import-x": importX },
    settings: { "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".json"] })] },
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: "./src",
              from: "./src/server/store/throughput",
              except: ["./index.ts"],
              message: `layers: the store's throughput machinery is imported through its index (src/server/store/throughput), never a file behind it ${SEE}`,
            },
            {
              // The cli is the top layer: only the entry points (bin/, the build's dist/cli.js) and tests load it.
              target: "./src/!(cli)/**",
              from: "./src/cli",
              message: `layers: nothing in src/ imports the cli, the top layer; the parts it wires know nothing of it ${SEE}`,
            },
            {
              target: "./src",
              from: ["./test", "./bench", "./testkit"],
              message: `layers: src/ is what ships: it imports nothing of the tests, the benchmarks or testkit/ ${SEE}`,
            },
          ],
        },
      ],
    },
  },
  {
    // A function a reader takes in at once (issue 48): a longer one is split into named steps, a dispatcher into a table of handlers.
    files: ["src/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    // What is read as a whole: `mgmt init`'s file templates (each the text of one file), the migrations in order, generated code.
    files: ["src/cli/init/templates/**", "src/server/store/migrations.ts", "src/plugin/proto/gen/**"],
    rules: { "max-lines-per-function": "off" },
  },
  {
    // test/lint/fixtures/cycle shows the rule at work (test/lint/layers.test.ts).
    files: ["src/**/*.ts", "test/lint/fixtures/**/*.ts"],
    plugins: { "import-x": importX },
    // import-x/extensions: the files the rule reads to follow imports further (its default is .js only).
    settings: { "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".json"] })], "import-x/extensions": [".ts"] },
    // Type-only imports are not followed (a type cycle inside a folder is harmless); the layer rules above see them.
    rules: { "import-x/no-cycle": "error" },
  },
);
