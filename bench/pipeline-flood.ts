/**
 * A client that pipelines and never reads (issue 44): CONNS connections each write REQUESTS
 * `GET /v4/openapi.json` (public, about 113 KB an answer) and read nothing. The server runs in
 * a child process (SQLite in memory) that samples its own RSS; meanwhile this process asks an
 * ordinary `GET /v4/profile` every PROBE_MS and times it. Printed: the server's RSS before,
 * at its peak under the flood and after the clients went, and the probe's median and p95 under
 * the flood against alone (the ratio). Loopback only; the flood stops after FLOOD_SECONDS and
 * the whole run after a hard limit, whatever happens.
 *
 * Run with `node scripts/run-ts.mjs bench/pipeline-flood.ts`; `BENCH_UNGATED=1` (with a small
 * `BENCH_CONNS` and `BENCH_REQUESTS`) runs the same flood with no bound, for comparison.
 */
import { fork, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { request } from "node:http";

const CONNS = Number(process.env.BENCH_CONNS ?? 30);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 15);
const PROBE_MS = Number(process.env.BENCH_PROBE_MS ?? 200);
const HARD_LIMIT_MS = (FLOOD_SECONDS + 60) * 1000;

interface Ready {
  port: number;
  token: string;
}
interface Rss {
  rss: number;
  peak: number;
}

async function serve(): Promise<void> {
  const { silentLogger, startServer } = await import("../src/server");
  // BENCH_UNGATED=1: no bound at all, to see what the gate prevents (keep CONNS x REQUESTS small: it grows without bound).
  const ungated = process.env.BENCH_UNGATED === "1" ? { maxUnanswered: Infinity, maxUnsentBytes: Infinity, maxWaiting: Infinity } : undefined;
  const server = await startServer({ logger: silentLogger, backpressure: ungated });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  process.on("message", (m: string) => {
    if (m === "rss") {
      peak = Math.max(peak, process.memoryUsage().rss);
      process.send!({ rss: process.memoryUsage().rss, peak } satisfies Rss);
    } else if (m === "reset-peak") {
      peak = process.memoryUsage().rss;
      process.send!({ rss: peak, peak } satisfies Rss);
    } else if (m === "gc") {
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ rss: process.memoryUsage().rss, peak } satisfies Rss);
    } else if (m === "stop") {
      clearInterval(sampler);
      void server.close().then(() => process.exit(0));
    }
  });
  process.send!({ port: server.port, token: server.token! } satisfies Ready);
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as T));
    child.send(message);
  });
}

/** One ordinary request's time in ms (its own connection, as a separate client would). */
function probe(port: number, token: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/v4/profile", headers: { authorization: `Bearer ${token}`, connection: "close" } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`probe answered ${res.statusCode}`))));
    });
    req.setTimeout(30_000, () => req.destroy(new Error("probe timed out")));
    req.on("error", reject);
    req.end();
  });
}

async function probeFor(port: number, token: string, ms: number): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    times.push(await probe(port, token).catch(() => 30_000));
    await new Promise((r) => setTimeout(r, PROBE_MS));
  }
  return times;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;

function flood(port: number): Socket[] {
  const one = "GET /v4/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const bytes = one.repeat(REQUESTS);
  return Array.from({ length: CONNS }, () => {
    const s = connect(port, "127.0.0.1");
    // Never read: the socket is paused from the start, so the kernel's buffers fill and stay full.
    s.pause();
    s.on("error", () => undefined);
    s.on("connect", () => s.write(bytes));
    return s;
  });
}

async function main(): Promise<void> {
  const hard = setTimeout(() => {
    process.stderr.write("pipeline-flood: hard limit reached, stopping\n");
    process.exit(1);
  }, HARD_LIMIT_MS);
  hard.unref();
  const child = fork(process.argv[1]!, ["--serve"], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  try {
    const ready = await new Promise<Ready>((resolve) => child.once("message", (m) => resolve(m as Ready)));
    const alone = await probeFor(ready.port, ready.token, 3_000);
    const before = await ask<Rss>(child, "reset-peak");
    const sockets = flood(ready.port);
    const under = await probeFor(ready.port, ready.token, FLOOD_SECONDS * 1000);
    const during = await ask<Rss>(child, "rss");
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 2_000));
    const after = await ask<Rss>(child, "gc");
    const alive = await probe(ready.port, ready.token).then(
      () => "yes",
      (err: Error) => `no (${err.message})`,
    );
    process.stdout.write(
      [
        `pipeline flood: ${CONNS} connections x ${REQUESTS} never-read GET /v4/openapi.json, ${FLOOD_SECONDS} s`,
        `server RSS: before ${mib(before.rss)}, peak under the flood ${mib(during.peak)}, after the clients went ${mib(after.rss)}`,
        `GET /v4/profile alone: median ${quantile(alone, 0.5).toFixed(1)} ms, p95 ${quantile(alone, 0.95).toFixed(1)} ms (${alone.length})`,
        `GET /v4/profile under the flood: median ${quantile(under, 0.5).toFixed(1)} ms, p95 ${quantile(under, 0.95).toFixed(1)} ms, max ${Math.max(...under).toFixed(1)} ms (${under.length})`,
        `ratio under/alone: median ${(quantile(under, 0.5) / quantile(alone, 0.5)).toFixed(2)}x, p95 ${(quantile(under, 0.95) / quantile(alone, 0.95)).toFixed(2)}x`,
        `server alive after: ${alive}`,
        "",
      ].join("\n"),
    );
  } finally {
    child.send("stop");
    await new Promise((r) => child.once("exit", r));
  }
}

if (process.argv.includes("--serve")) void serve();
else
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
