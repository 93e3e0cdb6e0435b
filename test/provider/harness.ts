/**
 * The provider against a real in-process `mgmt serve`, driven the way an engine drives it:
 * validate, plan (with the engine's proposed new state), apply, refresh, import. Each step
 * asserts what the engines would reject (errors, an apply that differs from its plan), so a
 * resource test reads as the life of the object.
 */
import { MgmtClient } from "../../src/client";
import { createProvider } from "../../src/provider";
import type { Diagnostic } from "../../src/provider/framework/diagnostics";
import type { ProviderServer } from "../../src/provider/framework/server";
import { typedEqual } from "../../src/provider/framework/equality";
import { isWhollyKnown, type ObjectValue, type TfValue } from "../../src/provider/framework/value";
import { ManualClock, silentLogger, startServer, type RunningServer } from "../../src/server";

export interface Harness {
  readonly server: RunningServer;
  readonly provider: ProviderServer;
  readonly client: MgmtClient;
  /** The provider's clock (the server keeps its own). */
  now: Date;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const server = await startServer({ logger: silentLogger, clock: new ManualClock(new Date().toISOString()) });
  const h = { server, now: new Date() } as Harness & { provider: ProviderServer; client: MgmtClient };
  h.provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: server.token! }, now: () => h.now });
  h.client = new MgmtClient({ url: server.url, token: server.token! });
  const configured = await h.provider.configure({});
  if (configured.diagnostics.length > 0) throw new Error(JSON.stringify(configured.diagnostics));
  h.close = async () => {
    await h.client.close();
    await server.close();
  };
  return h;
}

const attributeNames = (h: Harness, typeName: string) => Object.keys(h.provider.schemas().resources[typeName]!.block.attributes ?? {});
const isComputed = (h: Harness, typeName: string, name: string) => h.provider.schemas().resources[typeName]!.block.attributes![name]!.computed === true;

/** A full configuration object: what the test sets, null for the rest (as the engine sends it). */
export function configOf(h: Harness, typeName: string, values: Record<string, TfValue>): ObjectValue {
  return Object.fromEntries(attributeNames(h, typeName).map((n) => [n, values[n] ?? null]));
}

/** The engine's ProposedNewState: configured values, and the prior value of computed attributes left null. */
function proposed(h: Harness, typeName: string, prior: ObjectValue | null, config: ObjectValue): ObjectValue {
  return Object.fromEntries(
    attributeNames(h, typeName).map((n) => {
      const c = config[n] ?? null;
      return [n, c === null && isComputed(h, typeName, n) ? (prior?.[n] ?? null) : c];
    }),
  );
}

const errorsOf = (diags: readonly Diagnostic[]) => diags.filter((d) => d.severity === "error");

export async function validate(h: Harness, typeName: string, values: Record<string, TfValue>): Promise<readonly Diagnostic[]> {
  return (await h.provider.validateResourceConfig(typeName, configOf(h, typeName, values))).diagnostics;
}

export interface Planned {
  readonly plannedState: ObjectValue;
  readonly requiresReplace: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

export async function plan(h: Harness, typeName: string, prior: ObjectValue | null, values: Record<string, TfValue>): Promise<Planned> {
  const config = configOf(h, typeName, values);
  const v = await h.provider.validateResourceConfig(typeName, config);
  if (errorsOf(v.diagnostics).length > 0) throw new Error(`validation failed: ${JSON.stringify(v.diagnostics)}`);
  const p = await h.provider.planResourceChange(typeName, { priorState: prior, proposedNewState: proposed(h, typeName, prior, config), config });
  if (errorsOf(p.diagnostics).length > 0) throw new Error(`plan failed: ${JSON.stringify(p.diagnostics)}`);
  return {
    plannedState: p.plannedState!,
    requiresReplace: p.requiresReplace.map((path) => path.map((s) => ("attribute" in s ? s.attribute : "?")).join(".")),
    diagnostics: p.diagnostics,
  };
}

/** The attributes a plan changes, compared by type as the engine does (sets as sets): what it shows as a diff. */
export function changes(h: Harness, typeName: string, prior: ObjectValue, planned: ObjectValue): string[] {
  const attributes = h.provider.schemas().resources[typeName]!.block.attributes ?? {};
  return Object.keys(planned).filter((k) => !typedEqual(attributes[k]!.type, prior[k] ?? null, planned[k] ?? null));
}

export interface Applied {
  readonly state: ObjectValue | null;
  readonly diagnostics: readonly Diagnostic[];
}

/** Plans and applies; with `replace` in the plan, destroys and creates as the engine does. */
export async function apply(h: Harness, typeName: string, prior: ObjectValue | null, values: Record<string, TfValue>): Promise<Applied & { planned: Planned }> {
  const planned = await plan(h, typeName, prior, values);
  const config = configOf(h, typeName, values);
  if (prior !== null && planned.requiresReplace.length > 0) {
    const destroyed = await h.provider.applyResourceChange(typeName, { priorState: prior, plannedState: null, config: null });
    if (errorsOf(destroyed.diagnostics).length > 0) return { state: prior, diagnostics: destroyed.diagnostics, planned };
    const created = await plan(h, typeName, null, values);
    return { ...(await applyPlanned(h, typeName, null, created.plannedState, config)), planned };
  }
  return { ...(await applyPlanned(h, typeName, prior, planned.plannedState, config)), planned };
}

async function applyPlanned(h: Harness, typeName: string, prior: ObjectValue | null, planned: ObjectValue, config: ObjectValue): Promise<Applied> {
  const r = await h.provider.applyResourceChange(typeName, { priorState: prior, plannedState: planned, config });
  if (r.newState !== null && errorsOf(r.diagnostics).length === 0) {
    // The engine's consistency check: every value known in the plan comes back unchanged.
    for (const [k, v] of Object.entries(planned)) {
      if (isWhollyKnown(v) && JSON.stringify(v) !== JSON.stringify(r.newState[k]))
        throw new Error(`inconsistent result after apply: ${k} planned ${JSON.stringify(v)}, got ${JSON.stringify(r.newState[k])}`);
    }
    if (!isWhollyKnown(r.newState)) throw new Error("apply left a value unknown");
  }
  return { state: r.newState, diagnostics: r.diagnostics };
}

export async function create(h: Harness, typeName: string, values: Record<string, TfValue>): Promise<ObjectValue> {
  const r = await apply(h, typeName, null, values);
  if (r.state === null || errorsOf(r.diagnostics).length > 0) throw new Error(`create failed: ${JSON.stringify(r.diagnostics)}`);
  return r.state;
}

export async function destroy(h: Harness, typeName: string, state: ObjectValue): Promise<readonly Diagnostic[]> {
  const r = await h.provider.applyResourceChange(typeName, { priorState: state, plannedState: null, config: null });
  if (r.newState !== null) throw new Error("destroy left a state");
  return r.diagnostics;
}

export async function refresh(h: Harness, typeName: string, state: ObjectValue): Promise<Applied> {
  const r = await h.provider.readResource(typeName, state);
  return { state: r.newState, diagnostics: r.diagnostics };
}

export async function importState(h: Harness, typeName: string, id: string): Promise<Applied> {
  const r = await h.provider.importResourceState(typeName, id);
  return { state: r.imported[0]?.state ?? null, diagnostics: r.diagnostics };
}
