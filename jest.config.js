const project = {
  testEnvironment: "node",
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }],
  },
  testTimeout: 30000,
};

/** @type {import('jest').Config} */
module.exports = {
  // Three workers on the two cores: the longest files mostly wait (on engines, on Retry-After and back-off, on
  // answers a proxy holds), so a third file runs in that time. Measured on a clean clone: jest 770 s with two
  // workers, 621 s with three, every test passing in both (docs/benchmarks.md).
  maxWorkers: 3,
  testTimeout: 30000,
  // Each file's duration, for the slowest-ten list .ci/run prints (scripts/jest-timings.cjs).
  reporters: ["default", "<rootDir>/scripts/jest-timings.cjs"],
  // What a run's workers share (its folder, its one PostgreSQL cluster when a test asks for it: test/global/).
  globalSetup: "<rootDir>/test/global/setup.ts",
  globalTeardown: "<rootDir>/test/global/teardown.ts",
  // Longest files first, from jest's cache or, on a clean clone, the committed durations of a full run.
  testSequencer: "<rootDir>/test/global/sequencer.cjs",
  projects: [
    // Every test; the server tests on SQLite. Tests that need Postgres itself live in test/server/postgres/.
    {
      ...project,
      displayName: "default",
      testMatch: ["<rootDir>/test/**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/server/postgres/"],
    },
    // The same server tests on the run's throwaway PostgreSQL cluster (one database per server).
    {
      ...project,
      displayName: "server-postgres",
      testMatch: ["<rootDir>/test/server/**/*.test.ts", "<rootDir>/test/fuzz/**/*.test.ts"],
      testPathIgnorePatterns: [
        "/node_modules/",
        // Spawns the CLI on :memory: and SQLite files and checks flag parsing; `mgmt serve --db postgres://`
        // is spawned by test/server/postgres/concurrency.test.ts instead.
        "<rootDir>/test/server/cli\\.test\\.ts$",
        "<rootDir>/test/server/cli-extras\\.test\\.ts$",
        // SQLite's own behaviour (the file itself: hashes at rest, migration records, group commit and durability
        // under kill -9, answers remembered across processes); the portable store tests are store.test.ts.
        "<rootDir>/test/server/[^/]*-sqlite\\.test\\.ts$",
      ],
      setupFiles: ["<rootDir>/test/server/postgres/use-postgres.ts"],
      globalSetup: "<rootDir>/test/global/postgres-setup.ts",
    },
  ],
};
