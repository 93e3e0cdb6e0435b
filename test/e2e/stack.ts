/**
 * A working directory driven by a real engine (OpenTofu or Terraform) against a real `mgmt
 * serve`: write a JSON configuration, run commands, read plans and state as JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MgmtClient } from "../../src/client";
import { engineEnvironment, runEngine, writeCliConfig, type Engine, type EngineResult } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { FaultProxy } from "../../testkit/fault-proxy";

export interface PlanJson {
  resource_changes?: {
    address: string;
    change: { actions: string[]; after?: unknown; after_sensitive?: unknown; before?: unknown; before_sensitive?: unknown };
  }[];
}
interface StateJson {
  values?: { root_module?: { resources?: { address: string; values: Record<string, unknown>; sensitive_values?: unknown }[] } };
}

export class EngineStack {
  readonly dir: string;
  env: NodeJS.ProcessEnv;
  /** Everything every command printed, for checks that a secret never shows. */
  readonly transcript: string[] = [];

  private constructor(
    readonly engine: Engine,
    readonly server: RunningServer,
    readonly client: MgmtClient,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `mgmt-e2e-${engine.name}-`));
    this.env = engineEnvironment({ cliConfig: writeCliConfig(this.dir), url: server.url, token: server.token });
  }

  /** `serveEnv`: the server's environment (a fixed MGMT_ADMIN_TOKEN for tests that use the admin namespace). */
  static async start(engine: Engine, serveEnv: NodeJS.ProcessEnv = process.env): Promise<EngineStack> {
    const server = await startServe(undefined, serveEnv);
    const stack = new EngineStack(engine, server, new MgmtClient({ url: server.url, token: server.token }));
    await stack.ok("init");
    return stack;
  }

  /** Sends the provider's requests to another API root (a fault proxy in front of the server). */
  pointAt(url: string): void {
    this.env = { ...this.env, MGMT_URL: url };
  }

  async stop(): Promise<void> {
    await this.client.close();
    await this.server.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** main.tf.json: the provider, then the given top-level blocks (resource, data, output, import...). */
  write(blocks: Record<string, unknown>, file = "main.tf.json"): void {
    const withProvider =
      file === "main.tf.json" ? { terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, provider: { mgmt: {} }, ...blocks } : blocks;
    writeFileSync(join(this.dir, file), JSON.stringify(withProvider, null, 1));
  }

  // Flags go before positional arguments: the engines stop parsing flags at the first one.
  async run(command: string, ...args: string[]): Promise<EngineResult> {
    const r = await runEngine(this.engine, [command, "-no-color", ...args], this.dir, this.env);
    this.transcript.push(r.stdout, r.stderr);
    return r;
  }

  async ok(command: string, ...args: string[]): Promise<EngineResult> {
    const r = await this.run(command, ...args);
    if (r.code !== 0) throw new Error(`${this.engine.name} ${command} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  async json<T>(...args: string[]): Promise<T> {
    const r = await runEngine(this.engine, ["show", "-json", ...args], this.dir, this.env);
    this.transcript.push(r.stderr);
    if (r.code !== 0) throw new Error(`${this.engine.name} show -json exited ${r.code}\n${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** The planned actions per address, and the plan's JSON and printed output. */
  async plan(): Promise<{ actions: Record<string, string[]>; json: PlanJson; output: string }> {
    const r = await this.ok("plan", "-out=plan.out");
    const json = await this.json<PlanJson>("plan.out");
    const actions = Object.fromEntries(
      (json.resource_changes ?? []).filter((c) => c.change.actions.join() !== "no-op").map((c) => [c.address, c.change.actions]),
    );
    return { actions, json, output: r.stdout + r.stderr };
  }

  async state(): Promise<Record<string, Record<string, unknown>>> {
    const s = await this.json<StateJson>();
    return Object.fromEntries((s.values?.root_module?.resources ?? []).map((r) => [r.address, r.values]));
  }

  async stateJson(): Promise<StateJson> {
    return this.json<StateJson>();
  }

  /** `plan -detailed-exitcode` exits 0: the live account matches the configuration exactly. */
  async expectNoChanges(): Promise<void> {
    const r = await this.run("plan", "-detailed-exitcode");
    if (r.code !== 0) throw new Error(`expected no changes, ${this.engine.name} plan exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  }
}

/**
 * For one describe block: a stack whose provider reaches its server through a fault proxy,
 * started before the block's tests and stopped after them.
 */
export function stackBehindFaultProxy(engine: Engine): { readonly stack: EngineStack; readonly proxy: FaultProxy } {
  const started = {} as { stack: EngineStack; proxy: FaultProxy };
  beforeAll(async () => {
    started.stack = await EngineStack.start(engine);
    started.proxy = await FaultProxy.start(started.stack.server.url);
    started.stack.pointAt(started.proxy.url);
  });
  afterAll(async () => {
    await started.proxy?.close();
    await started.stack?.stop();
  });
  return started;
}
