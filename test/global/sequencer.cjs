// The order jest hands test files to its workers: longest first, so the workers finish together rather than one
// starting a five-minute file at the end. Jest knows each file's duration from its cache of earlier runs on this machine;
// a clean clone (a CI runner) has no cache, and jest would fall back to file size, which says little (a short file can
// drive an npm install). The durations of a full run, kept in test/global/durations.json, stand in for the cache there.
// Refresh them after a full run with `node scripts/jest-timings.cjs --save`.
const { existsSync, readFileSync } = require("node:fs");
const { relative } = require("node:path");
const Sequencer = require("@jest/test-sequencer").default;
const { DURATIONS, durationKey } = require("../../scripts/jest-timings.cjs");

/** What a file calls when it links a scaffold's one npm install of the run (test/support/scaffold-install.ts); the arguments name which. */
const SHARES_INSTALL = /\binstalledScaffold\(([^)]*)\)/;

/** The scaffold install `test` shares, by the arguments it passes; undefined for a file that shares none. */
const sharedInstall = (test) => SHARES_INSTALL.exec(readFileSync(test.path, "utf8"))?.[1];

class DurationSequencer extends Sequencer {
  committed = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, "utf8")) : {};

  constructor(options) {
    super(options);
    this.workers = options?.globalConfig?.maxWorkers ?? 1;
  }

  time(test) {
    const { rootDir, displayName } = test.context.config;
    // Seconds in the file, milliseconds in jest's cache.
    const seconds = this.committed[durationKey(relative(rootDir, test.path), displayName?.name)];
    return super.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
  }

  /**
   * Longest first; but of the files that share a scaffold's install, only the first starts with the run: another
   * started beside it would hold its worker idle while the first installs, so it waits for the next free worker.
   */
  sort(tests) {
    const sorted = super.sort(tests);
    const first = new Set();
    const later = new Set();
    for (const t of sorted.slice(0, this.workers)) {
      const install = sharedInstall(t);
      if (install === undefined) continue;
      if (first.has(install)) later.add(t);
      else first.add(install);
    }
    if (later.size === 0) return sorted;
    const rest = sorted.filter((t) => !later.has(t));
    return [...rest.slice(0, this.workers), ...later, ...rest.slice(this.workers)];
  }
}

module.exports = DurationSequencer;
