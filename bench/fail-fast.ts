/**
 * How soon a plan fails when the API is not there: nothing listening on the URL's port, and a
 * host name that does not resolve, against the same plan with the API up, on each engine. The
 * first error must reach the user within seconds and say what to do. Run with
 * `npm run bench:failfast`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../src/harness/engine";
import { PROVIDER_SOURCE } from "../src/provider/identity";
import { closedPort } from "../testkit/closed-port";
import { sshKeyText } from "../testkit/ssh-keys";
import { withLocalApi } from "./local-api";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Timed {
  ms: number;
  code: number;
  /** The error as printed, on one line. */
  error: string;
}

async function plan(engine: Engine, dir: string, url: string, token: string): Promise<Timed> {
  const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url, token });
  const start = performance.now();
  const r = await runEngine(engine, ["plan", "-no-color", "-refresh=true"], dir, env);
  const ms = performance.now() - start;
  const out = (r.stdout + r.stderr).replace(/\s+/g, " ");
  // The summary, then the detail after the engine's quote of the configuration.
  const at = out.indexOf("Error: ");
  const summary = at < 0 ? "" : out.slice(at, out.indexOf(" with ", at));
  const detail = out.slice(out.indexOf(" GET ", at) + 1, out.indexOf("skips this check", at) + "skips this check".length);
  return { ms, code: r.code ?? -1, error: at < 0 ? "" : `${summary}: ${detail}` };
}

async function main(): Promise<void> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const lines = ["| engine | API | plan exit | median time to the error | vs. a plan with the API up |", "|---|---|---|---|---|"];
  const messages: string[] = [];
  for (const engine of availableEngines()) {
    await withLocalApi(async ({ server, dir }) => {
      writeFileSync(
        join(dir, "main.tf.json"),
        JSON.stringify({
          terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
          provider: { mgmt: {} },
          resource: { mgmt_ssh_key: { k: { label: "k", ssh_key: sshKeyText("ed25519", "fail-fast") } } },
        }),
      );
      await runEngine(engine, ["init", "-no-color"], dir, engineEnvironment({ cliConfig: writeCliConfig(dir), url: server.url, token: server.token }));
      const down = `http://127.0.0.1:${await closedPort()}/v4`;
      const cases: [string, string][] = [
        ["up", server.url],
        ["nothing listening", down],
        ["host does not resolve", "http://mgmt-api.invalid/v4"],
      ];
      const times = new Map<string, Timed[]>();
      // Interleaved, so machine noise falls on every case alike.
      for (let run = 0; run < RUNS; run++) {
        for (const [name, url] of cases) {
          const t = await plan(engine, dir, url, server.token);
          times.set(name, [...(times.get(name) ?? []), t]);
        }
      }
      const up = median(times.get("up")!.map((t) => t.ms));
      for (const [name] of cases) {
        const ts = times.get(name)!;
        const ms = median(ts.map((t) => t.ms));
        lines.push(`| ${engine.name} | ${name} | ${ts[0]!.code} | ${(ms / 1000).toFixed(1)} s | ${(ms / up).toFixed(2)}x |`);
        if (ts[0]!.error) messages.push(`${engine.name}, ${name}: ${ts[0]!.error}`);
      }
    });
  }
  process.stdout.write([...lines, "", ...messages].join("\n") + "\n");
}

void main();
