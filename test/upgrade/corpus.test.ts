/** @tier engine */
/**
 * Every state an earlier release wrote (test/upgrade/corpus, recorded by test/e2e/upgrade.test.ts)
 * plans with no changes under this build, against the store that release's run left behind, on
 * the engine that wrote it. Releases are never rebuilt here: the corpus is what they wrote.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig } from "../../src/harness/engine";
import { RELEASES } from "../../src/harness/releases";
import { startServe } from "../../src/harness/serve";
import { CORPUS_DIR, type CorpusEntry } from "./stack";

jest.setTimeout(120_000);

const entries: CorpusEntry[] = readdirSync(CORPUS_DIR)
  .filter((name) => existsSync(join(CORPUS_DIR, name, "entry.json")))
  .map((name) => JSON.parse(readFileSync(join(CORPUS_DIR, name, "entry.json"), "utf8")) as CorpusEntry);

it("holds every release on OpenTofu and, where Terraform runs here, on Terraform", () => {
  for (const { version } of RELEASES) {
    for (const engine of availableEngines()) expect(entries.map((e) => `${e.release}-${e.engine}`)).toContain(`${version}-${engine.name}`);
  }
});

// An entry of an engine this machine lacks is planned where that engine is.
const runnable = entries.flatMap((e) =>
  availableEngines()
    .filter((engine) => engine.name === e.engine)
    .map((engine) => ({ ...e, engine, name: `${e.release}-${e.engine}` })),
);

describe.each(runnable)("the state release $release wrote with $engine.name", (entry) => {
  it("plans no changes under this build", async () => {
    const dir = mkdtempSync(join(tmpdir(), `mgmt-corpus-${entry.name}-`));
    cpSync(join(CORPUS_DIR, entry.name), dir, { recursive: true });
    // The store migrates forward as it opens, as a team's would on a new `mgmt serve`.
    const server = await startServe(["--port", "0", "--db", join(dir, "store", "mgmt.sqlite")]);
    try {
      const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: server.url, token: server.token });
      const plan = await runEngine(entry.engine, ["plan", "-no-color", "-detailed-exitcode"], dir, env);
      expect({ code: plan.code, output: plan.code === 0 ? "" : plan.stdout + plan.stderr }).toEqual({ code: 0, output: "" });
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
