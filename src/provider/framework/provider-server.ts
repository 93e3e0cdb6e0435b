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
import type { Diagnosed, ProviderSchemas, ProviderServer } from "./server";
import { isWhollyKnown, type ObjectValue } from "./value";
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
  const now = options.now ?? (() => new Date());
  const log = options.log ?? silentLog;
  const resources = new Map(def.resources.map((r) => [r.typeName, r]));
  const dataSources = new Map(def.dataSources.map((d) => [d.typeName, d]));
  const ephemeralResources = new Map((def.ephemeralResources ?? []).map((e) => [e.typeName, e]));
  const functions = new Map((def.functions ?? []).map((f) => [f.name, f]));
  // One per process: StopProvider means the engine is about to end it, so nothing restarts. The
  // engine still records what the calls in progress answer, so the client this signal reaches
  // cancels waits, reads and writes not yet sent, never a write already sent (CallOptions.signal).
  const stopping = new AbortController();
  // Every request in flight listens to it, and an engine runs 10 operations at once, some paging.
  setMaxListeners(0, stopping.signal);
  let ctx: Ctx | undefined;
  const inState = new StateIds();

  const resource = (typeName: string) => {
    const r = resources.get(typeName);
    if (!r) throw new UnknownType("resource", typeName);
    return r;
  };
  const dataSource = (typeName: string) => {
    const d = dataSources.get(typeName);
    if (!d) throw new UnknownType("data source", typeName);
    return d;
  };

  const ephemeralResource = (typeName: string) => {
    const e = ephemeralResources.get(typeName);
    if (!e) throw new UnknownType("ephemeral resource", typeName);
    return e;
  };

  /** A CRUD call's context; its warnings are collected into `diagnostics`. */
  const operation = (diagnostics: Diagnostic[]): Operation<Ctx> => {
    if (ctx === undefined) throw new Error("the provider is not configured");
    return { ctx, signal: stopping.signal, now, warn: (summary, detail) => void diagnostics.push(warning(summary, detail)) };
  };
  const resourceOperation = (diagnostics: Diagnostic[], priv: PrivateState): ResourceOperation<Ctx> => ({ ...operation(diagnostics), private: priv });

  /**
   * A create, update or delete of the type, with the context told before (so a read racing the
   * write lists again) and after (so nothing listed during the write is served afterwards).
   */
  async function writing<T>(op: Operation<Ctx>, typeName: string, write: () => Promise<T>): Promise<T> {
    def.written?.(op.ctx, typeName);
    try {
      return await write();
    } finally {
      def.written?.(op.ctx, typeName);
    }
  }

  /** Every entry point reports failures as diagnostics (after any warnings) instead of failing the RPC. */
  async function guarded<R extends object>(what: string, fallback: R, body: (diagnostics: Diagnostic[]) => Promise<R>): Promise<R & Diagnosed> {
    const diagnostics: Diagnostic[] = [];
    try {
      const result = await body(diagnostics);
      return { ...result, diagnostics };
    } catch (err) {
      const failure = err instanceof UnknownType ? [error(err.message)] : def.describeFailure(what, err);
      return { ...fallback, diagnostics: [...diagnostics, ...failure] };
    }
  }

  const validate = (typeName: string, attributes: Attributes, own: ((c: ObjectValue) => readonly Diagnostic[]) | undefined, config: ObjectValue) => [
    ...validateAttributes(attributes, config),
    ...secretsMisplaced(typeName, attributes, config),
    ...(own?.(config) ?? []),
  ];

  const schemas: ProviderSchemas = {
    provider: schemaOf(def.description, def.attributes),
    resources: Object.fromEntries(def.resources.map((r) => [r.typeName, schemaOf(r.description, r.attributes, schemaVersion(r.upgraders))])),
    dataSources: Object.fromEntries(def.dataSources.map((d) => [d.typeName, schemaOf(d.description, d.attributes)])),
    ephemeralResources: Object.fromEntries([...ephemeralResources.values()].map((e) => [e.typeName, schemaOf(e.description, e.attributes)])),
    functions: Object.fromEntries([...functions.values()].map((f) => [f.name, functionSignature(f)])),
  };

  return {
    schemas: () => schemas,

    async validateProviderConfig(config) {
      return { diagnostics: validate("provider", def.attributes, def.validate, config) };
    },

    async configure(config) {
      return guarded("configure the provider", {}, async (diagnostics) => {
        const result = await def.configure(config, { signal: stopping.signal, log, now });
        if ("diagnostics" in result) diagnostics.push(...result.diagnostics);
        else ctx = result.ctx;
        return {};
      });
    },

    async validateResourceConfig(typeName, config) {
      return guarded(`validate ${typeName}`, {}, async (diagnostics) => {
        const r = resource(typeName);
        diagnostics.push(...validate(r.typeName, r.attributes, r.validate?.bind(r), config));
        return {};
      });
    },

    async validateDataResourceConfig(typeName, config) {
      return guarded(`validate ${typeName}`, {}, async (diagnostics) => {
        const d = dataSource(typeName);
        diagnostics.push(...validate(d.typeName, d.attributes, d.validate?.bind(d), config));
        return {};
      });
    },

    async upgradeResourceState(typeName, version, rawState) {
      return guarded(`upgrade ${typeName} state`, { upgradedState: null }, async (diagnostics) => {
        const r = resource(typeName);
        const upgraded = upgradeStoredState({
          typeName,
          attributes: Object.keys(r.attributes),
          upgraders: r.upgraders,
          version,
          stored: rawState,
          providerVersion: def.version,
        });
        if ("problem" in upgraded) {
          diagnostics.push(upgraded.problem);
          return { upgradedState: null };
        }
        // The plugin encodes it against the schema's types, which refuses a value of the wrong type.
        return { upgradedState: upgraded.state as ObjectValue };
      });
    },

    async readResource(typeName, currentState, priv) {
      return guarded(`read ${typeName}`, { newState: currentState }, async (diagnostics) => {
        const r = resource(typeName);
        const kept = PrivateState.decode(priv);
        inState.note(typeName, currentState);
        const fromApi = await inState.reading(typeName, r.read(resourceOperation(diagnostics, kept), currentState));
        inState.note(typeName, fromApi);
        if (fromApi === null) diagnostics.push(gone(typeName, currentState));
        return { newState: fromApi === null ? null : settleRead(r.attributes, currentState, fromApi), ...privateOut(kept, priv) };
      });
    },

    async planResourceChange(typeName, req) {
      return guarded(`plan ${typeName}`, { plannedState: null, requiresReplace: [] }, async (diagnostics) => {
        const r = resource(typeName);
        inState.note(typeName, req.priorState);
        const planned = planChange(r, req.priorState, req.proposedNewState, req.config, now());
        diagnostics.push(...planned.diagnostics);
        if (req.priorState === null && planned.plannedState !== null && r.twins && !hasErrors(diagnostics)) {
          const twins = await r.twins(operation(diagnostics), planned.plannedState);
          for (const twin of await inState.outside(typeName, twins)) diagnostics.push(twinWarning(typeName, twin));
        }
        return {
          plannedState: planned.plannedState,
          requiresReplace: planned.requiresReplace,
          ...(req.priorPrivate ? { plannedPrivate: req.priorPrivate } : {}),
        };
      });
    },

    async applyResourceChange(typeName, req) {
      return guarded(`apply ${typeName}`, { newState: req.priorState }, async (diagnostics) => {
        const r = resource(typeName);
        const kept = PrivateState.decode(req.plannedPrivate);
        const op = resourceOperation(diagnostics, kept);
        if (req.plannedState === null) {
          const prior = req.priorState;
          if (prior !== null) await writing(op, typeName, () => r.delete(op, prior));
          return { newState: null };
        }
        const config = req.config ?? req.plannedState;
        const { priorState, plannedState } = req;
        let fromApi: ObjectValue;
        try {
          fromApi = await writing(op, typeName, () =>
            priorState === null ? r.create(op, plannedState, config) : r.update(op, priorState, plannedState, config),
          );
        } catch (err) {
          if (!(err instanceof PartialApply)) throw err;
          if (stopping.signal.aborted) {
            // The write committed and only what followed it was cancelled by the stop: recorded as done, not as a
            // failure (which the engine would taint, so that the next apply replaced an object that is fine); the
            // next refresh reads it again.
            diagnostics.push(
              warning(
                `${typeName}: written, not read back`,
                `The provider was stopped after the write and before reading the object back; the next refresh reads it (${err.message}).`,
              ),
            );
            inState.note(typeName, err.state);
            return { newState: settleApplied(req.plannedState, err.state, true), ...privateOut(kept, req.plannedPrivate) };
          }
          inState.note(typeName, err.state);
          diagnostics.push(...def.describeFailure(`apply ${typeName}`, err.cause));
          return { newState: settleApplied(req.plannedState, err.state, true), ...privateOut(kept, req.plannedPrivate) };
        }
        const newState = settleApplied(req.plannedState, fromApi);
        inState.note(typeName, newState);
        if (!isWhollyKnown(newState)) throw new Error(`${typeName}: the API left a planned value unknown`);
        return { newState, ...privateOut(kept, req.plannedPrivate) };
      });
    },

    async importResourceState(typeName, id) {
      return guarded(`import ${typeName}`, { imported: [] }, async (diagnostics) => {
        const r = resource(typeName);
        const kept = PrivateState.decode(undefined);
        const state = await r.importState(resourceOperation(diagnostics, kept), id);
        inState.note(typeName, state);
        if (state === null) {
          diagnostics.push(
            error(IMPORT_NOT_FOUND, `No ${typeName} with import id "${id}" exists. The import id is ${r.importId.description}, e.g. ${r.importId.example}.`),
          );
          return { imported: [] };
        }
        return { imported: [{ typeName, state, ...privateOut(kept, undefined) }] };
      });
    },

    async readDataSource(typeName, config) {
      return guarded(`read data ${typeName}`, { state: null }, async (diagnostics) => {
        const d = dataSource(typeName);
        diagnostics.push(...validate(d.typeName, d.attributes, d.validate?.bind(d), config));
        if (hasErrors(diagnostics)) return { state: null };
        return { state: await d.read(operation(diagnostics), config) };
      });
    },

    async validateEphemeralResourceConfig(typeName, config) {
      return guarded(`validate ${typeName}`, {}, async (diagnostics) => {
        const e = ephemeralResource(typeName);
        diagnostics.push(...validate(e.typeName, e.attributes, e.validate?.bind(e), config));
        return {};
      });
    },

    async openEphemeralResource(typeName, config) {
      return guarded(`open ${typeName}`, { result: null }, async (diagnostics) => {
        const e = ephemeralResource(typeName);
        diagnostics.push(...validate(e.typeName, e.attributes, e.validate?.bind(e), config));
        if (hasErrors(diagnostics)) return { result: null };
        const opened = await e.open(operation(diagnostics), config);
        if (!isWhollyKnown(opened.value)) throw new Error(`${typeName}: open left a value unknown`);
        return { result: opened.value, ...(opened.renewAt ? { renewAt: opened.renewAt } : {}), ...(opened.private ? { private: opened.private } : {}) };
      });
    },

    async renewEphemeralResource(typeName, priv) {
      return guarded(`renew ${typeName}`, {}, async (diagnostics) => {
        const e = ephemeralResource(typeName);
        return e.renew ? await e.renew(operation(diagnostics), priv) : {};
      });
    },

    async closeEphemeralResource(typeName, priv) {
      return guarded(`close ${typeName}`, {}, async (diagnostics) => {
        const e = ephemeralResource(typeName);
        await e.close?.(operation(diagnostics), priv);
        return {};
      });
    },

    async callFunction(name, args) {
      const f = functions.get(name);
      if (!f) return { error: { text: `This provider has no function "${name}"; it has ${[...functions.keys()].join(", ") || "none"}.` } };
      try {
        return { result: f.call(args) };
      } catch (err) {
        if (err instanceof FunctionFailure) return { error: { text: err.message, ...(err.argument !== undefined ? { argument: err.argument } : {}) } };
        throw err;
      }
    },

    async stop() {
      stopping.abort(new Error("the engine asked the provider to stop"));
    },

    async close() {
      if (ctx === undefined || !def.close) return;
      try {
        await def.close(ctx);
      } catch (err) {
        log("warn", "releasing the provider's resources failed", { error: err instanceof Error ? err.message : String(err) });
      }
    },
  };
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
