// A jest reporter that keeps each test file's duration from the last run in .tmp/test-timings.json (slowest
// first), so a run's cost can be read file by file: `node scripts/jest-timings.cjs` prints the slowest ten,
// which .ci/run does at the end of every run, and docs/benchmarks.md records. `--save` copies the durations of
// the last run into test/global/durations.json (committed), which orders the files of a run on a clean clone
// (test/global/sequencer.cjs).
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join, relative } = require("node:path");

const ROOT = join(__dirname, "..");
const FILE = join(ROOT, ".tmp", "test-timings.json");
const DURATIONS = join(ROOT, "test", "global", "durations.json");

/** A file of a jest project, as durations.json names it: its path from the root with / and the project's name. */
const durationKey = (file, project) => `${file.split("\\").join("/")} ${project ?? ""}`.trim();

class TimingsReporter {
  constructor(globalConfig) {
    this.workers = globalConfig.maxWorkers;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((r) => ({
        file: relative(ROOT, r.testFilePath),
        project: r.displayName?.name ?? "",
        seconds: Math.round((r.perfStats.end - r.perfStats.start) / 100) / 10,
        tests: r.numPassingTests + r.numFailingTests,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const wallSeconds = Math.round((Date.now() - results.startTime) / 1000);
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    writeFileSync(FILE, JSON.stringify({ wallSeconds, workers: this.workers, files }, null, 1) + "\n");
  }
}

/** The slowest `n` files of the last run, one line each. */
function slowest(n) {
  const { wallSeconds, workers, files } = JSON.parse(readFileSync(FILE, "utf8"));
  const lines = files.slice(0, n).map((f) => `${String(f.seconds).padStart(7)} s  ${f.file}${f.project ? ` (${f.project})` : ""}`);
  return [`slowest ${Math.min(n, files.length)} of ${files.length} test files (jest ran ${wallSeconds} s on ${workers ?? "?"} workers):`, ...lines].join("\n");
}

/** Writes the last run's durations into DURATIONS (seconds by file and project, slowest first); files it did not run keep theirs. */
function save() {
  const { files } = JSON.parse(readFileSync(FILE, "utf8"));
  const durations = { ...(existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, "utf8")) : {}) };
  for (const f of files) durations[durationKey(f.file, f.project)] = f.seconds;
  const sorted = Object.fromEntries(Object.entries(durations).sort(([, a], [, b]) => b - a));
  writeFileSync(DURATIONS, JSON.stringify(sorted, null, 2) + "\n");
  return `${files.length} durations written to ${relative(ROOT, DURATIONS)}`;
}

module.exports = TimingsReporter;
module.exports.DURATIONS = DURATIONS;
module.exports.durationKey = durationKey;

if (require.main === module) process.stdout.write(`${process.argv[2] === "--save" ? save() : slowest(Number(process.argv[2] ?? 10))}\n`);
