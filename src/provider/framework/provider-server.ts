/**
 * A ProviderServer assembled from resource and data source declarations: dispatch by type name,
 * the generic lifecycle rules, cancellation, and failures turned into diagnostics the engine shows.
 */
import { setMaxListeners } from "node:events";
import { error, hasErrors, warning, type Diagnostic } from "./diagnostics";
import { planChange, secretsMisplaced, settleApplied, settleRead, validateAttributes } from "./lifecycle";
import { silentLog, type Log } from "./log";
import {
  FunctionFailure,
  PartialApply,
  type Attributes,
  type DataSourceDefinition,
  type EphemeralResourceDefinition,
  type FunctionDefinition,
  type Operation,
  type ResourceOperation,
  type ResourceDefinition,
} from "./resource";
import { PrivateState } from "./private-state";
import type { ConfigOf } from "./value-types";
import { functionSignature, schemaOf } from "./schema";
import { schemaVersion, upgradeStoredState } from "./state-upgrade";
import type {
  ApplyResourceChangeRequest,
  ApplyResourceChangeResult,
  CallFunctionResult,
  Diagnosed,
  ImportedResource,
  OpenEphemeralResult,
  PlanResourceChangeRequest,
  PlanResourceChangeResult,
  ProviderSchemas,
  ProviderServer,
  ReadResourceResult,
  RenewEphemeralResult,
} from "./server";
import { isWhollyKnown, type ObjectValue, type TfValue } from "./value";
import { StateIds, twinWarning } from "./twins";

/** A provider: its own configuration typed from `attributes`, as a resource's is. */
export interface ProviderDefinition<Ctx, A extends Attributes = Attributes> {
  readonly description: string;
  /** The release, for messages that tell one release from another. */
  readonly version: string;
  readonly attributes: A;
  validate?(config: ConfigOf<A>): readonly Diagnostic[];
  /** Returns the context resources act with, or diagnostics saying why it cannot (a value still unknown among them). */
  configure(
    config: ConfigOf<A>,
    env: { readonly signal: AbortSignal; readonly log: Log; readonly now: () => Date },
  ): Promise<{ ctx: Ctx } | { diagnostics: readonly Diagnostic[] }>;
  readonly resources: readonly ResourceDefinition<Ctx>[];
  readonly dataSources: readonly DataSourceDefinition<Ctx>[];
  readonly ephemeralResources?: readonly EphemeralResourceDefinition<Ctx>[];
  readonly functions?: readonly FunctionDefinition[];
  /**
   * An apply of this resource type is about to change its objects, or just did (called on both
   * sides of every create, update and delete): whatever the context holds of the type's objects
   * (a snapshot of a collection) must be dropped.
   */
  written?(ctx: Ctx, typeName: string): void;
  /** Releases what configure acquired (the process is ending); failures are only logged. */
  close?(ctx: Ctx): Promise<void>;
  /** Turns an exception from the API client into diagnostics (summary names the operation). */
  describeFailure(operation: string, err: unknown): readonly Diagnostic[];
}

export interface ProviderServerOptions {
  /** The clock plans and CRUD see (token renewal windows, computed expiries); injectable for tests. */
  readonly now?: () => Date;
  readonly log?: Log;
}

/** The summary of an import whose object does not exist, which callers tell apart from other failures. */
export const IMPORT_NOT_FOUND = "Cannot import non-existent remote object";

export function createProviderServer<Ctx>(def: ProviderDefinition<Ctx>, options: ProviderServerOptions = {}): ProviderServer {
  const ephemeralResources = def.ephemeralResources ?? [];
  const functions = def.functions ?? [];
  const p: Core<Ctx> = {
    def,
    now: options.now ?? (() => new Date()),
    log: options.log ?? silentLog,
    resources: new Map(def.resources.map((r) => [r.typeName, r])),
    dataSources: new Map(def.dataSources.map((d) => [d.typeName, d])),
    ephemeralResources: new Map(ephemeralResources.map((e) => [e.typeName, e])),
    functions: new Map(functions.map((f) => [f.name, f])),
    stopping: new AbortController(),
    ctx: undefined,
    inState: new StateIds(),
  };
  // Every request in flight listens to it, and an engine runs 10 operations at once, some paging.
  setMaxListeners(0, p.stopping.signal);
  const schemas: ProviderSchemas = {
    provider: schemaOf(def.description, def.attributes),
    resources: Object.fromEntries(def.resources.map((r) => [r.typeName, schemaOf(r.description, r.attributes, schemaVersion(r.upgraders))])),
    dataSources: Object.fromEntries(def.dataSources.map((d) => [d.typeName, schemaOf(d.description, d.attributes)])),
    ephemeralResources: Object.fromEntries([...p.ephemeralResources.values()].map((e) => [e.typeName, schemaOf(e.description, e.attributes)])),
    functions: Object.fromEntries([...p.functions.values()].map((f) => [f.name, functionSignature(f)])),
  };

  return {
    schemas: () => schemas,
    validateProviderConfig: async (config) => ({ diagnostics: validate("provider", def.attributes, def.validate, config) }),
    configure: (config) => configure(p, config),
    validateResourceConfig: (typeName, config) => validateResourceConfig(p, typeName, config),
    validateDataResourceConfig: (typeName, config) => validateDataResourceConfig(p, typeName, config),
    upgradeResourceState: (typeName, version, rawState) => upgradeResourceState(p, typeName, version, rawState),
    readResource: (typeName, currentState, priv) => readResource(p, typeName, currentState, priv),
    planResourceChange: (typeName, req) => planResourceChange(p, typeName, req),
    applyResourceChange: (typeName, req) => applyResourceChange(p, typeName, req),
    importResourceState: (typeName, id) => importResourceState(p, typeName, id),
    readDataSource: (typeName, config) => readDataSource(p, typeName, config),
    validateEphemeralResourceConfig: (typeName, config) => validateEphemeralResourceConfig(p, typeName, config),
    openEphemeralResource: (typeName, config) => openEphemeralResource(p, typeName, config),
    renewEphemeralResource: (typeName, priv) => renewEphemeralResource(p, typeName, priv),
    closeEphemeralResource: (typeName, priv) => closeEphemeralResource(p, typeName, priv),
    callFunction: (name, args) => callFunction(p, name, args),
    stop: async () => p.stopping.abort(new Error("the engine asked the provider to stop")),
    close: () => close(p),
  };
}

/** One provider's declarations by name and what its calls share; every entry point below acts on it. */
interface Core<Ctx> {
  readonly def: ProviderDefinition<Ctx>;
  readonly now: () => Date;
  readonly log: Log;
  readonly resources: ReadonlyMap<string, ResourceDefinition<Ctx>>;
  readonly dataSources: ReadonlyMap<string, DataSourceDefinition<Ctx>>;
  readonly ephemeralResources: ReadonlyMap<string, EphemeralResourceDefinition<Ctx>>;
  readonly functions: ReadonlyMap<string, FunctionDefinition>;
  /**
   * One per process: StopProvider means the engine is about to end it, so nothing restarts. The
   * engine still records what the calls in progress answer, so the client this signal reaches
   * cancels waits, reads and writes not yet sent, never a write already sent (CallOptions.signal).
   */
  readonly stopping: AbortController;
  /** What configure returned; undefined until it succeeds. */
  ctx: Ctx | undefined;
  readonly inState: StateIds;
}

function resource<Ctx>(p: Core<Ctx>, typeName: string): ResourceDefinition<Ctx> {
  const r = p.resources.get(typeName);
  if (!r) throw new UnknownType("resource", typeName);
  return r;
}

function dataSource<Ctx>(p: Core<Ctx>, typeName: string): DataSourceDefinition<Ctx> {
  const d = p.dataSources.get(typeName);
  if (!d) throw new UnknownType("data source", typeName);
  return d;
}

function ephemeralResource<Ctx>(p: Core<Ctx>, typeName: string): EphemeralResourceDefinition<Ctx> {
  const e = p.ephemeralResources.get(typeName);
  if (!e) throw new UnknownType("ephemeral resource", typeName);
  return e;
}

/** A CRUD call's context; its warnings are collected into `diagnostics`. */
function operation<Ctx>(p: Core<Ctx>, diagnostics: Diagnostic[]): Operation<Ctx> {
  const { ctx } = p;
  if (ctx === undefined) throw new Error("the provider is not configured");
  return { ctx, signal: p.stopping.signal, now: p.now, warn: (summary, detail) => void diagnostics.push(warning(summary, detail)) };
}

const resourceOperation = <Ctx>(p: Core<Ctx>, diagnostics: Diagnostic[], priv: PrivateState): ResourceOperation<Ctx> => ({
  ...operation(p, diagnostics),
  private: priv,
});

/**
 * A create, update or delete of the type, with the context told before (so a read racing the
 * write lists again) and after (so nothing listed during the write is served afterwards).
 */
async function writing<Ctx, T>(p: Core<Ctx>, op: Operation<Ctx>, typeName: string, write: () => Promise<T>): Promise<T> {
  p.def.written?.(op.ctx, typeName);
  try {
    return await write();
  } finally {
    p.def.written?.(op.ctx, typeName);
  }
}

/** Every entry point reports failures as diagnostics (after any warnings) instead of failing the RPC. */
async function guarded<Ctx, R extends object>(
  p: Core<Ctx>,
  what: string,
  fallback: R,
  body: (diagnostics: Diagnostic[]) => Promise<R>,
): Promise<R & Diagnosed> {
  const diagnostics: Diagnostic[] = [];
  try {
    const result = await body(diagnostics);
    return { ...result, diagnostics };
  } catch (err) {
    const failure = err instanceof UnknownType ? [error(err.message)] : p.def.describeFailure(what, err);
    return { ...fallback, diagnostics: [...diagnostics, ...failure] };
  }
}

const validate = (typeName: string, attributes: Attributes, own: ((c: ObjectValue) => readonly Diagnostic[]) | undefined, config: ObjectValue) => [
  ...validateAttributes(attributes, config),
  ...secretsMisplaced(typeName, attributes, config),
  ...(own?.(config) ?? []),
];

// --- the entry points, one per call of ProviderServer ------------------------------------

function configure<Ctx>(p: Core<Ctx>, config: ObjectValue): Promise<Diagnosed> {
  return guarded(p, "configure the provider", {}, async (diagnostics) => {
    const result = await p.def.configure(config, { signal: p.stopping.signal, log: p.log, now: p.now });
    if ("diagnostics" in result) diagnostics.push(...result.diagnostics);
    else p.ctx = result.ctx;
    return {};
  });
}

function validateResourceConfig<Ctx>(p: Core<Ctx>, typeName: string, config: ObjectValue): Promise<Diagnosed> {
  return guarded(p, `validate ${typeName}`, {}, async (diagnostics) => {
    const r = resource(p, typeName);
    diagnostics.push(...validate(r.typeName, r.attributes, r.validate?.bind(r), config));
    return {};
  });
}

function validateDataResourceConfig<Ctx>(p: Core<Ctx>, typeName: string, config: ObjectValue): Promise<Diagnosed> {
  return guarded(p, `validate ${typeName}`, {}, async (diagnostics) => {
    const d = dataSource(p, typeName);
    diagnostics.push(...validate(d.typeName, d.attributes, d.validate?.bind(d), config));
    return {};
  });
}

function upgradeResourceState<Ctx>(
  p: Core<Ctx>,
  typeName: string,
  version: number,
  rawState: unknown,
): Promise<Diagnosed & { readonly upgradedState: ObjectValue | null }> {
  return guarded(p, `upgrade ${typeName} state`, { upgradedState: null }, async (diagnostics) => {
    const r = resource(p, typeName);
    const upgraded = upgradeStoredState({
      typeName,
      attributes: Object.keys(r.attributes),
      upgraders: r.upgraders,
      version,
      stored: rawState,
      providerVersion: p.def.version,
    });
    if ("problem" in upgraded) {
      diagnostics.push(upgraded.problem);
      return { upgradedState: null };
    }
    // The plugin encodes it against the schema's types, which refuses a value of the wrong type.
    return { upgradedState: upgraded.state as ObjectValue };
  });
}

function readResource<Ctx>(p: Core<Ctx>, typeName: string, currentState: ObjectValue, priv: Uint8Array | undefined): Promise<ReadResourceResult> {
  return guarded(p, `read ${typeName}`, { newState: currentState }, async (diagnostics) => {
    const r = resource(p, typeName);
    const kept = PrivateState.decode(priv);
    p.inState.note(typeName, currentState);
    const fromApi = await p.inState.reading(typeName, r.read(resourceOperation(p, diagnostics, kept), currentState));
    p.inState.note(typeName, fromApi);
    if (fromApi === null) diagnostics.push(gone(typeName, currentState));
    return { newState: fromApi === null ? null : settleRead(r.attributes, currentState, fromApi), ...privateOut(kept, priv) };
  });
}

function planResourceChange<Ctx>(p: Core<Ctx>, typeName: string, req: PlanResourceChangeRequest): Promise<PlanResourceChangeResult> {
  return guarded(p, `plan ${typeName}`, { plannedState: null, requiresReplace: [] }, async (diagnostics) => {
    const r = resource(p, typeName);
    p.inState.note(typeName, req.priorState);
    const planned = planChange(r, req.priorState, req.proposedNewState, req.config, p.now());
    diagnostics.push(...planned.diagnostics);
    if (req.priorState === null && planned.plannedState !== null && r.twins && !hasErrors(diagnostics)) {
      const twins = await r.twins(operation(p, diagnostics), planned.plannedState);
      for (const twin of await p.inState.outside(typeName, twins)) diagnostics.push(twinWarning(typeName, twin));
    }
    return {
      plannedState: planned.plannedState,
      requiresReplace: planned.requiresReplace,
      ...(req.priorPrivate ? { plannedPrivate: req.priorPrivate } : {}),
    };
  });
}

function applyResourceChange<Ctx>(p: Core<Ctx>, typeName: string, req: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResult> {
  return guarded(p, `apply ${typeName}`, { newState: req.priorState }, async (diagnostics) => {
    const r = resource(p, typeName);
    const kept = PrivateState.decode(req.plannedPrivate);
    const op = resourceOperation(p, diagnostics, kept);
    if (req.plannedState === null) {
      const prior = req.priorState;
      if (prior !== null) await writing(p, op, typeName, () => r.delete(op, prior));
      return { newState: null };
    }
    const config = req.config ?? req.plannedState;
    const { priorState, plannedState } = req;
    let fromApi: ObjectValue;
    try {
      fromApi = await writing(p, op, typeName, () =>
        priorState === null ? r.create(op, plannedState, config) : r.update(op, priorState, plannedState, config),
      );
    } catch (err) {
      if (!(err instanceof PartialApply)) throw err;
      partlyApplied(p, typeName, err, diagnostics);
      return { newState: settleApplied(plannedState, err.state, true), ...privateOut(kept, req.plannedPrivate) };
    }
    const newState = settleApplied(plannedState, fromApi);
    p.inState.note(typeName, newState);
    if (!isWhollyKnown(newState)) throw new Error(`${typeName}: the API left a planned value unknown`);
    return { newState, ...privateOut(kept, req.plannedPrivate) };
  });
}

/** A write that committed, with what followed it failed or cancelled: the object is recorded as it was written. */
function partlyApplied<Ctx>(p: Core<Ctx>, typeName: string, err: PartialApply, diagnostics: Diagnostic[]): void {
  p.inState.note(typeName, err.state);
  if (p.stopping.signal.aborted) {
    // Only what followed the write was cancelled by the stop: recorded as done, not as a failure
    // (which the engine would taint, so that the next apply replaced an object that is fine); the
    // next refresh reads it again.
    diagnostics.push(
      warning(
        `${typeName}: written, not read back`,
        `The provider was stopped after the write and before reading the object back; the next refresh reads it (${err.message}).`,
      ),
    );
  } else {
    diagnostics.push(...p.def.describeFailure(`apply ${typeName}`, err.cause));
  }
}

function importResourceState<Ctx>(p: Core<Ctx>, typeName: string, id: string): Promise<Diagnosed & { readonly imported: readonly ImportedResource[] }> {
  return guarded(p, `import ${typeName}`, { imported: [] }, async (diagnostics) => {
    const r = resource(p, typeName);
    const kept = PrivateState.decode(undefined);
    const state = await r.importState(resourceOperation(p, diagnostics, kept), id);
    p.inState.note(typeName, state);
    if (state === null) {
      diagnostics.push(
        error(IMPORT_NOT_FOUND, `No ${typeName} with import id "${id}" exists. The import id is ${r.importId.description}, e.g. ${r.importId.example}.`),
      );
      return { imported: [] };
    }
    return { imported: [{ typeName, state, ...privateOut(kept, undefined) }] };
  });
}

function readDataSource<Ctx>(p: Core<Ctx>, typeName: string, config: ObjectValue): Promise<Diagnosed & { readonly state: ObjectValue | null }> {
  return guarded(p, `read data ${typeName}`, { state: null }, async (diagnostics) => {
    const d = dataSource(p, typeName);
    diagnostics.push(...validate(d.typeName, d.attributes, d.validate?.bind(d), config));
    if (hasErrors(diagnostics)) return { state: null };
    return { state: await d.read(operation(p, diagnostics), config) };
  });
}

function validateEphemeralResourceConfig<Ctx>(p: Core<Ctx>, typeName: string, config: ObjectValue): Promise<Diagnosed> {
  return guarded(p, `validate ${typeName}`, {}, async (diagnostics) => {
    const e = ephemeralResource(p, typeName);
    diagnostics.push(...validate(e.typeName, e.attributes, e.validate?.bind(e), config));
    return {};
  });
}

function openEphemeralResource<Ctx>(p: Core<Ctx>, typeName: string, config: ObjectValue): Promise<OpenEphemeralResult> {
  return guarded(p, `open ${typeName}`, { result: null }, async (diagnostics) => {
    const e = ephemeralResource(p, typeName);
    diagnostics.push(...validate(e.typeName, e.attributes, e.validate?.bind(e), config));
    if (hasErrors(diagnostics)) return { result: null };
    const opened = await e.open(operation(p, diagnostics), config);
    if (!isWhollyKnown(opened.value)) throw new Error(`${typeName}: open left a value unknown`);
    return { result: opened.value, ...(opened.renewAt ? { renewAt: opened.renewAt } : {}), ...(opened.private ? { private: opened.private } : {}) };
  });
}

function renewEphemeralResource<Ctx>(p: Core<Ctx>, typeName: string, priv: Uint8Array | undefined): Promise<RenewEphemeralResult> {
  return guarded(p, `renew ${typeName}`, {}, async (diagnostics) => {
    const e = ephemeralResource(p, typeName);
    return e.renew ? await e.renew(operation(p, diagnostics), priv) : {};
  });
}

function closeEphemeralResource<Ctx>(p: Core<Ctx>, typeName: string, priv: Uint8Array | undefined): Promise<Diagnosed> {
  return guarded(p, `close ${typeName}`, {}, async (diagnostics) => {
    const e = ephemeralResource(p, typeName);
    await e.close?.(operation(p, diagnostics), priv);
    return {};
  });
}

async function callFunction<Ctx>(p: Core<Ctx>, name: string, args: readonly TfValue[]): Promise<CallFunctionResult> {
  const f = p.functions.get(name);
  if (!f) return { error: { text: `This provider has no function "${name}"; it has ${[...p.functions.keys()].join(", ") || "none"}.` } };
  try {
    return { result: f.call(args) };
  } catch (err) {
    if (err instanceof FunctionFailure) return { error: { text: err.message, ...(err.argument !== undefined ? { argument: err.argument } : {}) } };
    throw err;
  }
}

async function close<Ctx>(p: Core<Ctx>): Promise<void> {
  const { ctx, def } = p;
  if (ctx === undefined || !def.close) return;
  try {
    await def.close(ctx);
  } catch (err) {
    p.log("warn", "releasing the provider's resources failed", { error: err instanceof Error ? err.message : String(err) });
  }
}

function gone(typeName: string, state: ObjectValue): Diagnostic {
  const id = typeof state.id === "string" ? ` "${state.id}"` : "";
  return warning(
    `${typeName}${id} no longer exists`,
    `It was deleted or expired outside Terraform and has been removed from the state; the next apply creates it again.`,
  );
}

class UnknownType extends Error {
  constructor(kind: string, typeName: string) {
    super(`This provider has no ${kind} type "${typeName}"`);
  }
}

/** The private bytes to answer: the engine's own unless the call set a key. */
function privateOut(kept: PrivateState, given: Uint8Array | undefined): { private?: Uint8Array } {
  const bytes = kept.encode(given);
  return bytes ? { private: bytes } : {};
}
