/**
 * UpgradeResourceState's rules: the engine hands over a resource's state as the JSON some
 * release stored, with the schema version that release declared, and gets back the current
 * shape. A resource declares one upgrader per earlier version, so its schema version is simply
 * how many it has and cannot disagree with them. A state from a newer version is refused, and an
 * attribute the current schema lacks is an error, never dropped: it means an upgrader is missing.
 */
import { error, type Diagnostic } from "./diagnostics";

/** A resource's state as stored in JSON by one schema version. */
export type StoredState = { readonly [attr: string]: unknown };

/** From the stored shape of version N to that of version N+1. Pure: it sees the stored JSON only. */
export type StateUpgrader = (stored: StoredState) => StoredState;

/** The schema version of a resource with these upgraders: version N has N upgraders, from 0, 1, ... N-1. */
export const schemaVersion = (upgraders: readonly StateUpgrader[] | undefined): number => upgraders?.length ?? 0;

export type Upgraded = { readonly state: { readonly [attr: string]: unknown } } | { readonly problem: Diagnostic };

export interface UpgradeRequest {
  readonly typeName: string;
  /** The attributes of the current schema. */
  readonly attributes: readonly string[];
  readonly upgraders: readonly StateUpgrader[] | undefined;
  /** The schema version the stored state was written with. */
  readonly version: number;
  readonly stored: unknown;
  /** This provider's release, for messages. */
  readonly providerVersion: string;
}

export function upgradeStoredState(r: UpgradeRequest): Upgraded {
  const current = schemaVersion(r.upgraders);
  if (!Number.isInteger(r.version) || r.version < 0) {
    return {
      problem: error("Invalid stored state", `The state of this ${r.typeName} declares schema version ${r.version}, which no release of this provider wrote.`),
    };
  }
  if (r.version > current) {
    return {
      problem: error(
        "Resource instance managed by a newer provider version",
        `The state of this ${r.typeName} has schema version ${r.version}, written by a newer release of this provider; provider ${r.providerVersion} ` +
          `knows schema versions up to ${current}. Use the release that wrote it or a newer one (raise the provider's version constraint and run init -upgrade), ` +
          `or restore the state saved before that release ran. Nothing was changed.`,
      ),
    };
  }
  if (r.stored !== null && (typeof r.stored !== "object" || Array.isArray(r.stored))) {
    return { problem: error("Invalid stored state", `The stored state of this ${r.typeName} is not a JSON object.`) };
  }
  let state: StoredState = (r.stored ?? {}) as StoredState;
  for (let v = r.version; v < current; v++) state = r.upgraders![v]!(state);

  const known = new Set(r.attributes);
  const strays = Object.keys(state).filter((name) => !known.has(name));
  if (strays.length > 0) {
    return {
      problem: error(
        "Stored state has attributes this provider does not know",
        `The state of this ${r.typeName} (schema version ${r.version}) holds ${strays.map((s) => `"${s}"`).join(", ")}, which provider ${r.providerVersion}'s schema ` +
          `does not have and no state upgrader maps. Dropping them could lose data, so nothing was changed: this is a bug in the provider; keep the release ` +
          `that wrote the state until a fixed one is out.`,
      ),
    };
  }
  // An attribute added since the state was written starts out null, as the engines expect of an optional or computed one.
  return { state: Object.fromEntries(r.attributes.map((name) => [name, state[name] ?? null])) };
}
