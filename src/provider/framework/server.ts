/**
 * The boundary between the plugin (wire protocol) and the provider (API knowledge).
 * Every value here is already decoded against the schema's object type; every state is an
 * object value or null. The plugin never interprets values; the provider never sees bytes.
 */
import type { AttributePath, Diagnostic } from "./diagnostics";
import type { FunctionSignature, Schema } from "./schema";
import type { Log } from "./log";
import type { ObjectValue, TfValue } from "./value";

export interface ProviderSchemas {
  readonly provider: Schema;
  readonly resources: { readonly [typeName: string]: Schema };
  readonly dataSources: { readonly [typeName: string]: Schema };
  /** Protocol 6.7: engines that predate it never see these. */
  readonly ephemeralResources: { readonly [typeName: string]: Schema };
  /** Protocol 6.5, called as provider::<name>::<function>. */
  readonly functions: { readonly [name: string]: FunctionSignature };
}

export interface Diagnosed {
  readonly diagnostics: readonly Diagnostic[];
}

export interface ReadResourceResult extends Diagnosed {
  /** null: the object is gone; the engine plans to create it again. */
  readonly newState: ObjectValue | null;
  readonly private?: Uint8Array;
}

export interface PlanResourceChangeRequest {
  readonly priorState: ObjectValue | null;
  /** null when the plan is a destroy. */
  readonly proposedNewState: ObjectValue | null;
  readonly config: ObjectValue | null;
  readonly priorPrivate?: Uint8Array;
}

export interface PlanResourceChangeResult extends Diagnosed {
  readonly plannedState: ObjectValue | null;
  readonly requiresReplace: readonly AttributePath[];
  readonly plannedPrivate?: Uint8Array;
}

export interface ApplyResourceChangeRequest {
  readonly priorState: ObjectValue | null;
  /** null: destroy. */
  readonly plannedState: ObjectValue | null;
  readonly config: ObjectValue | null;
  readonly plannedPrivate?: Uint8Array;
}

export interface ApplyResourceChangeResult extends Diagnosed {
  readonly newState: ObjectValue | null;
  readonly private?: Uint8Array;
}

export interface ImportedResource {
  readonly typeName: string;
  readonly state: ObjectValue;
  readonly private?: Uint8Array;
}

export interface OpenEphemeralResult extends Diagnosed {
  /** null only beside an error. */
  readonly result: ObjectValue | null;
  /** When the engine should call renew, if the value must be kept fresh while in use. */
  readonly renewAt?: Date;
  readonly private?: Uint8Array;
}

export interface RenewEphemeralResult extends Diagnosed {
  readonly renewAt?: Date;
  readonly private?: Uint8Array;
}

/** A function answers a value or an error, never both; `argument` is the 0-based index at fault. */
export type CallFunctionResult = { readonly result: TfValue } | { readonly error: { readonly text: string; readonly argument?: number } };

export interface ProviderServer {
  schemas(): ProviderSchemas;
  validateProviderConfig(config: ObjectValue): Promise<Diagnosed>;
  configure(config: ObjectValue): Promise<Diagnosed>;
  validateResourceConfig(typeName: string, config: ObjectValue): Promise<Diagnosed>;
  validateDataResourceConfig(typeName: string, config: ObjectValue): Promise<Diagnosed>;
  /** rawState is the parsed JSON of the stored state, written under schema `version`. */
  upgradeResourceState(typeName: string, version: number, rawState: unknown): Promise<Diagnosed & { readonly upgradedState: ObjectValue | null }>;
  readResource(typeName: string, currentState: ObjectValue, priv?: Uint8Array): Promise<ReadResourceResult>;
  planResourceChange(typeName: string, req: PlanResourceChangeRequest): Promise<PlanResourceChangeResult>;
  applyResourceChange(typeName: string, req: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResult>;
  importResourceState(typeName: string, id: string): Promise<Diagnosed & { readonly imported: readonly ImportedResource[] }>;
  readDataSource(typeName: string, config: ObjectValue): Promise<Diagnosed & { readonly state: ObjectValue | null }>;
  validateEphemeralResourceConfig(typeName: string, config: ObjectValue): Promise<Diagnosed>;
  openEphemeralResource(typeName: string, config: ObjectValue): Promise<OpenEphemeralResult>;
  renewEphemeralResource(typeName: string, priv?: Uint8Array): Promise<RenewEphemeralResult>;
  closeEphemeralResource(typeName: string, priv?: Uint8Array): Promise<Diagnosed>;
  /** Functions are pure: they may be called before (or without) ConfigureProvider. */
  callFunction(name: string, args: readonly TfValue[]): Promise<CallFunctionResult>;
  /** Cancel in-flight work (Ctrl-C in the engine). */
  stop(): Promise<void>;
  /** The process is ending (the engine's Shutdown): release what configure acquired. */
  close(): Promise<void>;
}

/**
 * What a provider bundle exports, as the plugin sees it: the plugin loads the bundle at run time
 * (so a start that only fetches the schema never does) and knows it only by this shape, which the
 * provider's entry is checked against.
 */
export interface ProviderModule {
  createProvider(options?: { readonly log?: Log }): ProviderServer;
  /** Loads the API client ahead of the first ConfigureProvider (`mgmt warm`). */
  preloadClient(): Promise<void>;
}
