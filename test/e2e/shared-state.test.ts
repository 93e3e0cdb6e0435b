/** @tier engine */
/**
 * State shared in Postgres, as a team's CI keeps it: a cdktf stack with the `pg` backend
 * (test/support/shared-state-app.ts), the connection string only in PG_CONN_STR. Two CI jobs, each
 * in its own copy of the synthesized stack, apply at the same moment: the advisory lock makes one
 * wait for the other, and every object exists once. A fresh checkout then plans no changes and
 * `mgmt drift` reports clean. Without -lock-timeout, a job fails at once while another holds the lock.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { Client } from "pg";
import { MgmtClient } from "../../src/client";
import { AUTOMATION_ENV, availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine, type EngineResult } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import type { PostgresServer } from "../../src/harness/postgres";
import { runProcess } from "../../src/harness/process";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { runPostgres } from "../global/run-postgres";
import { SHARED_STATE_KEYS, stateSchema } from "../support/shared-state-app";

jest.setTimeout(300_000);

// A CI role with a password, as a team's state database has; the throwaway cluster trusts loopback,
// so the password is never checked, only carried, which is what must not leak.
const ROLE = "ci_state";
const PASSWORD = "s3cret-ci-state-password";
const DATABASE = "team_state";

describe("state shared in Postgres (the pg backend)", () => {
  /** The run's cluster (test/global/run-postgres.ts): the role and the database are this file's own. */
  let cluster: PostgresServer;
  let server: RunningServer;
  let client: MgmtClient;
  let work: string;
  let connStr: string;
  let baseEnv: NodeJS.ProcessEnv;
  /** Everything every engine and `mgmt drift` printed: the password must never show. */
  const transcript: string[] = [];

  beforeAll(async () => {
    cluster = await runPostgres();
    const admin = new Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      await admin.query(`create role ${ROLE} login password '${PASSWORD}'`);
      await admin.query(`create database ${DATABASE} owner ${ROLE}`);
    } finally {
      await admin.end();
    }
    connStr = `postgres://${ROLE}:${PASSWORD}@127.0.0.1:${cluster.port}/${DATABASE}?sslmode=disable`;
    server = await startServe();
    client = new MgmtClient({ url: server.url, token: server.token });
    work = mkdtempSync(join(tmpdir(), "mgmt-pgstate-"));
    // The synthesized stack pins the provider's version, which only the build's mirror satisfies at init.
    baseEnv = { ...engineEnvironment({ cliConfig: writeCliConfig(work, "mirror"), url: server.url, token: server.token }), PG_CONN_STR: connStr };
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  afterEach(() => {
    for (const text of transcript) expect(text).not.toContain(PASSWORD);
  });

  /** The state database as its owner sees it. */
  async function query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const db = new Client({ connectionString: connStr });
    await db.connect();
    try {
      return (await db.query<T>(sql, params)).rows;
    } finally {
      await db.end();
    }
  }

  /** Synthesizes the app for STACK into a new folder, as a fresh CI checkout does; returns the stack folder. */
  async function synth(stack: string): Promise<string> {
    const dir = mkdtempSync(join(work, "checkout-"));
    const outdir = join(dir, "cdktf.out");
    // The synthesizing process has no PG_CONN_STR: the configuration cannot depend on it.
    const env: NodeJS.ProcessEnv = { ...process.env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: "1", SHARED_STATE_STACK: stack };
    delete env.PG_CONN_STR;
    const r = await runProcess(process.execPath, [repoPath("scripts/run-ts.mjs"), repoPath("test/support/shared-state-app.ts")], { cwd: dir, env });
    if (r.code !== 0) throw new Error(`synth exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return join(outdir, "stacks", stack);
  }

  /** A copy of the synthesized stack folder: one CI job's workspace, with its own .terraform. */
  function job(stackDir: string, name: string): string {
    const dir = join(mkdtempSync(join(work, `${name}-`)), "stack");
    cpSync(stackDir, dir, { recursive: true });
    return dir;
  }

  async function engineRun(engine: Engine, dir: string, args: string[], env: NodeJS.ProcessEnv = baseEnv): Promise<EngineResult> {
    const r = await runEngine(engine, [args[0]!, "-no-color", ...args.slice(1)], dir, env);
    transcript.push(r.stdout, r.stderr);
    return r;
  }

  async function ok(engine: Engine, dir: string, ...args: string[]): Promise<EngineResult> {
    const r = await engineRun(engine, dir, args);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} in ${dir} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** The labels of the live SSH keys, tags and tokens that belong to STACK. */
  async function liveLabels(stack: string): Promise<{ keys: string[]; tags: string[]; tokens: string[] }> {
    const mine = (label: string) => label.startsWith(`${stack}-`);
    const keys: string[] = [];
    for await (const k of client.listSshKeys()) if (mine(k.label)) keys.push(k.label);
    const tags: string[] = [];
    for await (const t of client.listTags()) if (mine(t.label)) tags.push(t.label);
    const tokens: string[] = [];
    for await (const t of client.listTokens()) if (mine(t.label)) tokens.push(t.label);
    return { keys: keys.sort(), tags, tokens };
  }

  const added = (r: EngineResult): number => Number(/Resources: (\d+) added/.exec(r.stdout)?.[1] ?? "-1");

  // An engine's tests run in order: the later ones work on the state the first one wrote.
  describe.each(availableEngines())("with $name", (engine: Engine) => {
    const stack = `shared-${engine.name}`;
    const schema = stateSchema(stack);

    it("two CI jobs applying at once: one waits for the lock, every object exists once, a fresh checkout has nothing to do", async () => {
      const synthesized = await synth(stack);
      const text = readFileSync(join(synthesized, "cdk.tf.json"), "utf8");
      const config = JSON.parse(text) as { terraform: { backend: unknown } };
      // The backend names its schema and nothing else: the connection comes from PG_CONN_STR.
      expect(config.terraform.backend).toEqual({ pg: { schema_name: schema } });
      for (const secret of [PASSWORD, connStr, "postgres://", "postgresql://", ROLE, String(cluster.port)]) expect(text).not.toContain(secret);

      const [first, second] = [job(synthesized, "job-a"), job(synthesized, "job-b")];
      // init creates the schema and its table; CI jobs of one pipeline init before they apply.
      await ok(engine, first, "init");
      await ok(engine, second, "init");

      const applies = await Promise.all([first, second].map((dir) => engineRun(engine, dir, ["apply", "-auto-approve", "-lock-timeout=60s"])));
      for (const r of applies) expect({ code: r.code, output: r.code === 0 ? "" : r.stdout + r.stderr }).toEqual({ code: 0, output: "" });
      // One job created the whole stack; the other found it in the shared state after waiting for the lock.
      const objects = Object.keys(SHARED_STATE_KEYS).length + 2;
      expect(applies.map(added).sort()).toEqual([0, objects]);
      const waiter = applies.find((r) => added(r) === 0)!;
      // The engines say so only when taking the lock takes longer than a moment.
      expect(waiter.stdout + waiter.stderr).toContain("Acquiring state lock. This may take a few moments...");

      expect(await liveLabels(stack)).toEqual({
        keys: Object.keys(SHARED_STATE_KEYS)
          .map((name) => `${stack}-${name}`)
          .sort(),
        tags: [`${stack}-team`],
        tokens: [`${stack}-reporting`],
      });

      // What the backend keeps: one row per workspace in the schema's `states` table, the state as JSON.
      const rows = await query<{ name: string; data: string }>(`select name, data from ${schema}.states`);
      expect(rows.map((r) => r.name)).toEqual(["default"]);
      const state = JSON.parse(rows[0]!.data) as { resources: { type: string; name: string; instances: { attributes: Record<string, string> }[] }[] };
      expect(state.resources.map((r) => `${r.type}.${r.name}`).sort()).toEqual(
        ["mgmt_ssh_key.key_bastion", "mgmt_ssh_key.key_ci", "mgmt_ssh_key.key_laptop", "mgmt_tag.team", "mgmt_token.reporting"].sort(),
      );
      // Sensitive values are in it in plain text: the token's secret, of which the API shows only the start.
      const token = state.resources.find((r) => r.type === "mgmt_token")!.instances[0]!.attributes;
      expect(token.token!.length).toBeGreaterThan(16);
      expect(token.token!.startsWith((await client.getToken(Number(token.id))).token)).toBe(true);
      // No lock outlives the jobs that held it.
      expect(await advisoryLocks()).toEqual([]);

      // A third job from a fresh checkout: synthesized again, its own init, the state read from Postgres.
      const fresh = await synth(stack);
      await ok(engine, fresh, "init");
      await ok(engine, fresh, "plan", "-detailed-exitcode", "-lock-timeout=60s");
      expect(await mgmtDrift(fresh, engine)).toMatchObject({ code: 0, stderr: "" });
      // Nothing a job keeps in its folder (.terraform/terraform.tfstate records the backend's settings) holds the password.
      expect(filesContaining(first, schema)).toContain(join(first, ".terraform", "terraform.tfstate"));
      for (const dir of [first, second, fresh]) expect(filesContaining(dir, PASSWORD)).toEqual([]);
    });

    it("a job without -lock-timeout fails at once while another holds the lock, and changes nothing", async () => {
      const synthesized = await synth(stack);
      const [holder, impatient] = [job(synthesized, "holder"), job(synthesized, "impatient")];
      await ok(engine, holder, "init");
      await ok(engine, impatient, "init");
      const before = await stateRow(schema);

      const held = await holdLock(engine, holder);
      try {
        // The lock is a session's advisory lock on the workspace's row id; nothing about it is written to the table.
        const [row] = await query<{ id: string }>(`select id from ${schema}.states where name = 'default'`);
        expect((await advisoryLocks()).filter((l) => l.pid === held.backendPid).map((l) => l.key)).toContain(row!.id);
        const r = await engineRun(engine, impatient, ["apply", "-auto-approve", "-replace=mgmt_tag.team"]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("Error acquiring the state lock");
        expect(r.stderr).toContain("Workspace is already locked: default");
        expect(r.stdout).not.toContain("Apply complete");
      } finally {
        held.answer("no");
      }
      expect(await held.exit).not.toBe(0);
      expect(held.output()).toContain("Apply cancelled");
      // Neither job touched the state or the account.
      expect(await stateRow(schema)).toEqual(before);
      expect((await liveLabels(stack)).tags).toEqual([`${stack}-team`]);
      expect(await advisoryLocks()).toEqual([]);
    });

    it("force-unlock cannot take the lock from a live job; a cancelled job's lock goes with its connection", async () => {
      const synthesized = await synth(stack);
      const [holder, next] = [job(synthesized, "holder"), job(synthesized, "next")];
      await ok(engine, holder, "init");
      await ok(engine, next, "init");
      const held = await holdLock(engine, holder);
      try {
        const blocked = await engineRun(engine, next, ["plan"]);
        expect(blocked.code).toBe(1);
        const lockId = /ID:\s+(\S+)/.exec(blocked.stderr)?.[1];
        expect(lockId).toBeDefined();
        // The engine reports success, but an advisory lock belongs to the session that took it.
        await ok(engine, next, "force-unlock", "-force", lockId!);
        expect((await advisoryLocks()).map((l) => l.pid)).toContain(held.backendPid);
        expect((await engineRun(engine, next, ["plan"])).stderr).toContain("Error acquiring the state lock");
        // mgmt drift passes no lock flag: without one it fails as a check that could not run.
        const drift = await mgmtDrift(next, engine);
        expect(drift.code).toBe(1);
        expect(drift.stderr).toContain("Error acquiring the state lock");
      } finally {
        // A CI job cancelled outright: its process dies, Postgres ends its session and frees the lock.
        held.kill();
      }
      await held.exit;
      // No force-unlock needed: the next job takes the lock once Postgres has seen the session end; a drift
      // check gets its lock timeout through the engines' TF_CLI_ARGS_plan.
      await ok(engine, next, "plan", "-detailed-exitcode", "-lock-timeout=60s");
      expect(await mgmtDrift(next, engine, { TF_CLI_ARGS_plan: "-lock-timeout=60s" })).toMatchObject({ code: 0, stderr: "" });
      expect(await advisoryLocks()).toEqual([]);
    });
  });

  /** `mgmt drift` (a refresh-only plan) in DIR, as a scheduled job runs it. */
  async function mgmtDrift(dir: string, engine: Engine, extra: NodeJS.ProcessEnv = {}): Promise<EngineResult> {
    const r = await runProcess(repoPath("bin/mgmt"), ["drift", "--dir", dir, "--engine", engine.name, "--format", "json"], { env: { ...baseEnv, ...extra } });
    transcript.push(r.stdout, r.stderr);
    return r;
  }

  /** The files under DIR holding TEXT, the provider binaries the engine installed aside. */
  function filesContaining(dir: string, text: string): string[] {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !join(e.parentPath, e.name).includes(`${sep}.terraform${sep}providers${sep}`))
      .map((e) => join(e.parentPath, e.name))
      .filter((file) => readFileSync(file).includes(text));
  }

  /**
   * The advisory locks held in this file's database: the backend holding each, and its bigint key (pg_locks
   * splits it in two halves). The cluster is the run's, so other files' servers hold locks of their own.
   */
  function advisoryLocks(): Promise<{ pid: number; key: string }[]> {
    return query<{ pid: number; key: string }>(
      `select pid, ((classid::bigint << 32) | objid::bigint)::text as key from pg_locks
       where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`,
    );
  }

  async function stateRow(schema: string): Promise<string | undefined> {
    return (await query<{ data: string }>(`select data from ${schema}.states where name = 'default'`))[0]?.data;
  }

  /**
   * An apply waiting for its approval, which holds the state lock the whole time, as a CI job paused
   * for review does. Resolves once it prompts, with the Postgres backend that holds its lock.
   */
  async function holdLock(engine: Engine, dir: string) {
    const before = new Set((await advisoryLocks()).map((l) => l.pid));
    const interactive: NodeJS.ProcessEnv = { ...baseEnv };
    for (const name of Object.keys(AUTOMATION_ENV)) if (name !== "CHECKPOINT_DISABLE") delete interactive[name];
    const child = spawn(engine.binary, ["apply", "-no-color", "-replace=mgmt_tag.team"], { cwd: dir, env: interactive, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    const exit = new Promise<number | null>((resolve) =>
      child.once("close", (code) => {
        transcript.push(output);
        resolve(code);
      }),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Enter a value:")) resolve();
      });
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      void exit.then((code) => reject(new Error(`the holding apply ended (${code}) before its prompt:\n${output}`)));
    });
    const holders = (await advisoryLocks()).map((l) => l.pid).filter((pid) => !before.has(pid));
    if (holders.length === 0) throw new Error(`the apply prompts without holding a lock:\n${output}`);
    return {
      backendPid: holders[0]!,
      exit,
      output: () => output,
      answer: (text: string) => child.stdin.end(`${text}\n`),
      kill: () => child.kill("SIGKILL"),
    };
  }
});
