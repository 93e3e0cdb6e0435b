/**
 * A ProviderServer assembled from resource and data source definitions: dispatch by type
 * name, the generic lifecycle rules, and failures turned into diagnostics the engine shows.
 */
import { error, hasErrors, type Diagnostic } from "./diagnostics";
import { planChange, settleApplied, settleRead } from "./lifecycle";
import type { DataSourceDefinition, ResourceDefinition } from "./resource";
import type { Schema } from "./schema";
import type { Diagnosed, ProviderSchemas, ProviderServer } from "./server";
import { isWhollyKnown, type ObjectValue } from "./value";

export interface ProviderDefinition<Ctx> {
  readonly schema: Schema;
  validate?(config: ObjectValue): readonly Diagnostic[];
  /** Returns the context resources act with, or diagnostics saying why it cannot. */
  configure(config: ObjectValue): Promise<{ ctx: Ctx } | { diagnostics: readonly Diagnostic[] }>;
  readonly resources: readonly ResourceDefinition<Ctx>[];
  readonly dataSources: readonly DataSourceDefinition<Ctx>[];
  /** Turns an exception from the API client into diagnostics (summary names the operation). */
  describeFailure(operation: string, err: unknown): readonly Diagnostic[];
}

const none: Diagnosed = { diagnostics: [] };

export function createProviderServer<Ctx>(def: ProviderDefinition<Ctx>): ProviderServer {
  const resources = new Map(def.resources.map((r) => [r.typeName, r]));
  const dataSources = new Map(def.dataSources.map((d) => [d.typeName, d]));
  let ctx: Ctx | undefined;

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
  const context = (): Ctx => {
    if (ctx === undefined) throw new Error("the provider is not configured");
    return ctx;
  };

  /** Every entry point reports failures as diagnostics instead of failing the RPC. */
  async function guarded<T extends Diagnosed>(operation: string, fallback: Omit<T, "diagnostics">, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      const diagnostics = err instanceof UnknownType ? [error(err.message)] : def.describeFailure(operation, err);
      return { ...fallback, diagnostics } as T;
    }
  }

  return {
    schemas(): ProviderSchemas {
      return {
        provider: def.schema,
        resources: Object.fromEntries(def.resources.map((r) => [r.typeName, r.schema])),
        dataSources: Object.fromEntries(def.dataSources.map((d) => [d.typeName, d.schema])),
      };
    },

    async validateProviderConfig(config) {
      return { diagnostics: def.validate?.(config) ?? [] };
    },

    async configure(config) {
      return guarded("configure the provider", {}, async () => {
        const result = await def.configure(config);
        if ("diagnostics" in result) return { diagnostics: result.diagnostics };
        ctx = result.ctx;
        return none;
      });
    },

    async validateResourceConfig(typeName, config) {
      return guarded(`validate ${typeName}`, {}, async () => ({ diagnostics: resource(typeName).validate?.(config) ?? [] }));
    },

    async validateDataResourceConfig(typeName, config) {
      return guarded(`validate ${typeName}`, {}, async () => ({ diagnostics: dataSource(typeName).validate?.(config) ?? [] }));
    },

    async upgradeResourceState(typeName, version, rawState) {
      return guarded(`upgrade ${typeName} state`, { upgradedState: null }, async () => {
        const r = resource(typeName);
        if (version > r.schema.version) {
          return { upgradedState: null, diagnostics: [error(`${typeName} state was written by a newer provider (schema version ${version}); upgrade the provider`)] };
        }
        // Every schema is still at version 0: the stored JSON is already the current shape,
        // save that attributes the schema no longer has are dropped and new ones are null.
        const raw = (rawState ?? {}) as Record<string, unknown>;
        const upgraded: Record<string, ObjectValue[string]> = {};
        for (const name of Object.keys(r.schema.block.attributes ?? {})) upgraded[name] = (raw[name] ?? null) as ObjectValue[string];
        return { upgradedState: upgraded, diagnostics: [] };
      });
    },

    async readResource(typeName, currentState, priv) {
      return guarded(`read ${typeName}`, { newState: currentState }, async () => {
        const r = resource(typeName);
        const fromApi = await r.read(context(), currentState);
        return { newState: fromApi === null ? null : settleRead(r, currentState, fromApi), ...(priv ? { private: priv } : {}), diagnostics: [] };
      });
    },

    async planResourceChange(typeName, req) {
      return guarded(`plan ${typeName}`, { plannedState: null, requiresReplace: [] }, async () => {
        const planned = planChange(resource(typeName), req.priorState, req.proposedNewState, req.config);
        return { ...planned, ...(req.priorPrivate ? { plannedPrivate: req.priorPrivate } : {}), diagnostics: [] };
      });
    },

    async applyResourceChange(typeName, req) {
      return guarded(`apply ${typeName}`, { newState: req.priorState }, async () => {
        const r = resource(typeName);
        const c = context();
        if (req.plannedState === null) {
          if (req.priorState !== null) await r.delete(c, req.priorState);
          return { newState: null, diagnostics: [] };
        }
        const fromApi = req.priorState === null ? await r.create(c, req.plannedState) : await r.update(c, req.priorState, req.plannedState);
        const newState = settleApplied(req.plannedState, fromApi);
        if (!isWhollyKnown(newState)) throw new Error(`${typeName}: the API left a planned value unknown`);
        return { newState, diagnostics: [] };
      });
    },

    async importResourceState(typeName, id) {
      return guarded(`import ${typeName}`, { imported: [] }, async () => {
        const state = await resource(typeName).importState(context(), id);
        if (state === null) {
          return { imported: [], diagnostics: [error(`Cannot import non-existent remote object`, `No ${typeName} with id "${id}" exists.`)] };
        }
        return { imported: [{ typeName, state }], diagnostics: [] };
      });
    },

    async readDataSource(typeName, config) {
      return guarded(`read data ${typeName}`, { state: null }, async () => {
        const d = dataSource(typeName);
        const diagnostics = d.validate?.(config) ?? [];
        if (hasErrors(diagnostics)) return { state: null, diagnostics };
        return { state: await d.read(context(), config), diagnostics };
      });
    },

    async stop() {
      // In-flight requests finish on their own timeouts; nothing is left half-written.
    },
  };
}

class UnknownType extends Error {
  constructor(kind: string, typeName: string) {
    super(`This provider has no ${kind} type "${typeName}"`);
  }
}
