/**
 * tfplugin6.Provider on top of ProviderServer: decode the request, find the schema for the
 * type name, decode DynamicValues against it, call the provider, encode the answer.
 *
 * Failure policy: anything that goes wrong inside a call (an unknown type name, a value that
 * does not fit the schema, a provider that throws or rejects, a provider that failed to load)
 * is answered as an ERROR diagnostic. The engines render diagnostics next to the resource
 * and carry on cleanly; a gRPC error or a dead process shows up as "plugin crashed".
 * Only a request that is not even valid protobuf becomes a gRPC INTERNAL status.
 */
import { type Diagnostic, error } from "../provider/framework/diagnostics";
import { type Schema, blockType } from "../provider/framework/schema";
import type { ProviderSchemas, ProviderServer } from "../provider/framework/server";
import { type ObjectValue, type TfType, type TfValue, isDynamic } from "../provider/framework/value";
import { CodecError, decodeJsonValue, decodeValue, encodeValue } from "./codec";
import { int64ToNumber, toProtoDiagnostic, toProtoDiagnostics, toProtoFunction, toProtoPath, toProtoSchema, toProtoTimestamp } from "./convert";
import type { CallContext, GrpcServer } from "./grpc/server";
import { settleBeforeExit } from "./lifecycle";
import { type Logger, describeError, errorFields } from "./log";
import { mark, now } from "./trace";
import { tfplugin6 } from "./proto/gen/messages";

const P = tfplugin6;
const SERVICE = "/tfplugin6.Provider/";

/** A problem we can describe precisely; reported as the given diagnostic. */
class Failure extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.summary);
  }
}

interface Typed {
  readonly schema: Schema;
  readonly type: TfType;
}

/** The provider and everything derived from its schemas, built once per process. */
class Loaded {
  readonly schemas: ProviderSchemas;
  readonly providerType: Typed;
  readonly resources = new Map<string, Typed>();
  readonly dataSources = new Map<string, Typed>();
  readonly ephemeralResources = new Map<string, Typed>();

  constructor(readonly provider: ProviderServer) {
    this.schemas = provider.schemas();
    this.providerType = typed(this.schemas.provider);
    for (const [name, s] of Object.entries(this.schemas.resources)) this.resources.set(name, typed(s));
    for (const [name, s] of Object.entries(this.schemas.dataSources)) this.dataSources.set(name, typed(s));
    for (const [name, s] of Object.entries(this.schemas.ephemeralResources)) this.ephemeralResources.set(name, typed(s));
  }

  resource(typeName: string): Typed {
    const t = this.resources.get(typeName);
    if (!t)
      throw new Failure(
        error(
          `Unknown resource type "${typeName}"`,
          `This provider has no managed resource type named "${typeName}". Known types: ${[...this.resources.keys()].join(", ") || "none"}.`,
        ),
      );
    return t;
  }

  ephemeralResource(typeName: string): Typed {
    const t = this.ephemeralResources.get(typeName);
    if (!t)
      throw new Failure(
        error(
          `Unknown ephemeral resource type "${typeName}"`,
          `This provider has no ephemeral resource type named "${typeName}". Known types: ${[...this.ephemeralResources.keys()].join(", ") || "none"}.`,
        ),
      );
    return t;
  }

  dataSource(typeName: string): Typed {
    const t = this.dataSources.get(typeName);
    if (!t)
      throw new Failure(
        error(
          `Unknown data source type "${typeName}"`,
          `This provider has no data source type named "${typeName}". Known types: ${[...this.dataSources.keys()].join(", ") || "none"}.`,
        ),
      );
    return t;
  }
}

const typed = (schema: Schema): Typed => ({ schema, type: blockType(schema.block) });

// --- values -----------------------------------------------------------------------------

function decodeDynamic(dv: tfplugin6.IDynamicValue | null | undefined, type: TfType): TfValue {
  // The engines always send msgpack; JSON is the protocol's fallback. Neither set is a nil value.
  if (dv?.msgpack && dv.msgpack.length > 0) return decodeValue(dv.msgpack, type);
  if (dv?.json && dv.json.length > 0) return decodeJsonValue(JSON.parse(Buffer.from(dv.json).toString("utf8")), type);
  return null;
}

// Always msgpack: JSON cannot express unknown values, and not every engine version reads JSON answers.
const encodeDynamic = (value: TfValue, type: TfType): tfplugin6.IDynamicValue => ({ msgpack: encodeValue(value, type) });

function encodeResult(value: TfValue, type: TfType, what: string): tfplugin6.IDynamicValue {
  try {
    return encodeDynamic(value, type);
  } catch (e) {
    if (e instanceof CodecError) {
      throw new Failure(
        error(`Provider returned an invalid ${what}`, `The value does not conform to the schema: ${e.message}`, e.path.length > 0 ? e.path : undefined),
      );
    }
    throw e;
  }
}

function decodeObject(dv: tfplugin6.IDynamicValue | null | undefined, type: TfType, what: string): ObjectValue | null {
  const v = decodeDynamic(dv, type);
  if (v === null) return null;
  if (typeof v === "object" && !Array.isArray(v) && !isDynamic(v)) return v as ObjectValue;
  throw new Failure(error(`Invalid ${what}`, `Expected an object value for the ${what}, but it is ${typeof v === "symbol" ? "unknown" : "not an object"}.`));
}

function requireObject(dv: tfplugin6.IDynamicValue | null | undefined, type: TfType, what: string): ObjectValue {
  const v = decodeObject(dv, type, what);
  if (v === null) throw new Failure(error(`Missing ${what}`, `The engine sent a null ${what}.`));
  return v;
}

/** The engine sends empty bytes for "no private state"; the provider sees undefined. */
const priv = (b: Uint8Array | null | undefined): Uint8Array | undefined => (b && b.length > 0 ? b : undefined);

function protoFunctions(schemas: ProviderSchemas): Record<string, tfplugin6.IFunction> {
  return Object.fromEntries(Object.entries(schemas.functions).map(([name, f]) => [name, toProtoFunction(f)]));
}

async function callFunction(l: Loaded, name: string, args: readonly tfplugin6.IDynamicValue[]): Promise<tfplugin6.CallFunction.IResponse> {
  const signature = l.schemas.functions[name];
  if (!signature)
    throw new Failure(
      error(
        `Unknown function "${name}"`,
        `This provider has no function named "${name}". Known functions: ${Object.keys(l.schemas.functions).join(", ") || "none"}.`,
      ),
    );
  const parameters = signature.parameters ?? [];
  if (args.length !== parameters.length) return { error: { text: `${name} takes ${parameters.length} argument(s), got ${args.length}` } };
  const values: TfValue[] = [];
  for (const [i, p] of parameters.entries()) {
    try {
      values.push(decodeDynamic(args[i], p.type));
    } catch (e) {
      if (e instanceof CodecError) return { error: { text: e.message, functionArgument: i } };
      throw e;
    }
  }
  const result = await l.provider.callFunction(name, values);
  if ("error" in result)
    return { error: { text: result.error.text, ...(result.error.argument !== undefined ? { functionArgument: result.error.argument } : {}) } };
  return { result: encodeResult(result.result, signature.return_type, "function result") };
}

// --- the schema answer ------------------------------------------------------------------

/**
 * get_provider_schema_optional: the answer is the same in every process of a build, so an engine
 * that has it from one start of a command asks no later start for it (each start of a command
 * asked, three to five times per command). plan_destroy stays off: with it the engines would add
 * a PlanResourceChange per destroyed object, and a destroy has nothing to plan here; destroys
 * arrive as ApplyResourceChange with a null planned state.
 */
const CAPABILITIES: tfplugin6.IServerCapabilities = { planDestroy: false, getProviderSchemaOptional: true };

const protoSchemas = (schemas: { readonly [typeName: string]: Schema }): Record<string, tfplugin6.ISchema> =>
  Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, toProtoSchema(s)]));

/**
 * The GetProviderSchema answer, from the provider's schemas alone. The build encodes it from the
 * provider bundle into the plugin (schema-snapshot.ts), so the plugin usually serves those bytes
 * without loading the provider; test/plugin/schema-snapshot.test.ts keeps the two equal.
 */
export function providerSchemaResponse(schemas: ProviderSchemas): tfplugin6.GetProviderSchema.IResponse {
  return {
    provider: toProtoSchema(schemas.provider),
    resourceSchemas: protoSchemas(schemas.resources),
    dataSourceSchemas: protoSchemas(schemas.dataSources),
    ephemeralResourceSchemas: protoSchemas(schemas.ephemeralResources),
    functions: protoFunctions(schemas),
    // Terraform dereferences every Schema.block, so "no provider_meta" is an empty block, not nil.
    providerMeta: { version: 0, block: {} },
    serverCapabilities: CAPABILITIES,
    diagnostics: [],
  };
}

export const encodeProviderSchemaResponse = (schemas: ProviderSchemas): Uint8Array =>
  P.GetProviderSchema.Response.encode(providerSchemaResponse(schemas)).finish();

// --- the calls answered with diagnostics -----------------------------------------------

interface Codec<T> {
  decode(bytes: Uint8Array): T;
}
interface Encoder<T> {
  encode(message: T): { finish(): Uint8Array };
}
type Diagnosed = { diagnostics?: tfplugin6.IDiagnostic[] | null };

/** How the service registers one call whose failures become its answer's diagnostics. */
interface Registrar {
  rpc<Req, Res extends Diagnosed>(method: string, reqType: Codec<Req>, resType: Encoder<Res>, handle: (req: Req, l: Loaded) => Promise<Res>): void;
}
/** One row of the table: a call, its messages and its handler, registered through the service's Registrar. */
type Route = (r: Registrar) => void;
const route =
  <Req, Res extends Diagnosed>(method: string, reqType: Codec<Req>, resType: Encoder<Res>, handle: (req: Req, l: Loaded) => Promise<Res>): Route =>
  (r) =>
    r.rpc(method, reqType, resType, handle);

async function getMetadata(_req: tfplugin6.GetMetadata.IRequest, l: Loaded): Promise<tfplugin6.GetMetadata.IResponse> {
  return {
    serverCapabilities: CAPABILITIES,
    resources: [...l.resources.keys()].map((typeName) => ({ typeName })),
    dataSources: [...l.dataSources.keys()].map((typeName) => ({ typeName })),
    ephemeralResources: [...l.ephemeralResources.keys()].map((typeName) => ({ typeName })),
    functions: Object.keys(l.schemas.functions).map((name) => ({ name })),
    diagnostics: [],
  };
}

async function getProviderSchema(_req: tfplugin6.GetProviderSchema.IRequest, l: Loaded): Promise<tfplugin6.GetProviderSchema.IResponse> {
  return providerSchemaResponse(l.schemas);
}

async function validateProviderConfig(req: tfplugin6.ValidateProviderConfig.IRequest, l: Loaded): Promise<tfplugin6.ValidateProviderConfig.IResponse> {
  const config = requireObject(req.config, l.providerType.type, "provider configuration");
  return { diagnostics: toProtoDiagnostics((await l.provider.validateProviderConfig(config)).diagnostics) };
}

async function configureProvider(req: tfplugin6.ConfigureProvider.IRequest, l: Loaded): Promise<tfplugin6.ConfigureProvider.IResponse> {
  const config = requireObject(req.config, l.providerType.type, "provider configuration");
  return { diagnostics: toProtoDiagnostics((await l.provider.configure(config)).diagnostics) };
}

async function validateResourceConfig(req: tfplugin6.ValidateResourceConfig.IRequest, l: Loaded): Promise<tfplugin6.ValidateResourceConfig.IResponse> {
  const typeName = req.typeName ?? "";
  const config = requireObject(req.config, l.resource(typeName).type, "resource configuration");
  return { diagnostics: toProtoDiagnostics((await l.provider.validateResourceConfig(typeName, config)).diagnostics) };
}

async function validateDataResourceConfig(
  req: tfplugin6.ValidateDataResourceConfig.IRequest,
  l: Loaded,
): Promise<tfplugin6.ValidateDataResourceConfig.IResponse> {
  const typeName = req.typeName ?? "";
  const config = requireObject(req.config, l.dataSource(typeName).type, "data source configuration");
  return { diagnostics: toProtoDiagnostics((await l.provider.validateDataResourceConfig(typeName, config)).diagnostics) };
}

/** The stored state as the provider's upgraders read it: JSON, or null when there is none. */
function storedState(raw: tfplugin6.IRawState | null | undefined, typeName: string): unknown {
  const json = raw?.json;
  if (json && json.length > 0) {
    try {
      return JSON.parse(Buffer.from(json).toString("utf8"));
    } catch (e) {
      throw new Failure(error("Invalid stored state", `The stored state of this ${typeName} is not valid JSON: ${describeError(e)}`));
    }
  }
  if (raw?.flatmap && Object.keys(raw.flatmap).length > 0) {
    throw new Failure(
      error("Unsupported legacy state", `The stored state of this ${typeName} is in the pre-0.12 flatmap format, which this provider never wrote.`),
    );
  }
  return null;
}

async function upgradeResourceState(req: tfplugin6.UpgradeResourceState.IRequest, l: Loaded): Promise<tfplugin6.UpgradeResourceState.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.resource(typeName);
  const rawState = storedState(req.rawState, typeName);
  const result = await l.provider.upgradeResourceState(typeName, int64ToNumber(req.version), rawState);
  return {
    upgradedState: encodeResult(result.upgradedState, type, "upgraded state"),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function readResource(req: tfplugin6.ReadResource.IRequest, l: Loaded): Promise<tfplugin6.ReadResource.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.resource(typeName);
  const current = requireObject(req.currentState, type, "current state");
  const result = await l.provider.readResource(typeName, current, priv(req.private));
  return {
    newState: encodeResult(result.newState, type, "state"),
    // Private state is carried forward unless the provider replaces it.
    private: result.private ?? req.private ?? new Uint8Array(),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function planResourceChange(req: tfplugin6.PlanResourceChange.IRequest, l: Loaded): Promise<tfplugin6.PlanResourceChange.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.resource(typeName);
  const result = await l.provider.planResourceChange(typeName, {
    priorState: decodeObject(req.priorState, type, "prior state"),
    proposedNewState: decodeObject(req.proposedNewState, type, "proposed new state"),
    config: decodeObject(req.config, type, "configuration"),
    priorPrivate: priv(req.priorPrivate),
  });
  return {
    plannedState: encodeResult(result.plannedState, type, "planned state"),
    requiresReplace: result.requiresReplace.map(toProtoPath),
    plannedPrivate: result.plannedPrivate ?? req.priorPrivate ?? new Uint8Array(),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function applyResourceChange(req: tfplugin6.ApplyResourceChange.IRequest, l: Loaded): Promise<tfplugin6.ApplyResourceChange.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.resource(typeName);
  const result = await l.provider.applyResourceChange(typeName, {
    priorState: decodeObject(req.priorState, type, "prior state"),
    plannedState: decodeObject(req.plannedState, type, "planned state"),
    config: decodeObject(req.config, type, "configuration"),
    plannedPrivate: priv(req.plannedPrivate),
  });
  return {
    newState: encodeResult(result.newState, type, "new state"),
    private: result.private ?? req.plannedPrivate ?? new Uint8Array(),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function importResourceState(req: tfplugin6.ImportResourceState.IRequest, l: Loaded): Promise<tfplugin6.ImportResourceState.IResponse> {
  const typeName = req.typeName ?? "";
  l.resource(typeName);
  const result = await l.provider.importResourceState(typeName, req.id ?? "");
  return {
    importedResources: result.imported.map((r) => ({
      typeName: r.typeName,
      state: encodeResult(r.state, l.resource(r.typeName).type, "imported state"),
      private: r.private ?? new Uint8Array(),
    })),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function readDataSource(req: tfplugin6.ReadDataSource.IRequest, l: Loaded): Promise<tfplugin6.ReadDataSource.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.dataSource(typeName);
  const config = requireObject(req.config, type, "data source configuration");
  const result = await l.provider.readDataSource(typeName, config);
  return {
    state: encodeResult(result.state, type, "data source state"),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function validateEphemeralResourceConfig(
  req: tfplugin6.ValidateEphemeralResourceConfig.IRequest,
  l: Loaded,
): Promise<tfplugin6.ValidateEphemeralResourceConfig.IResponse> {
  const typeName = req.typeName ?? "";
  const config = requireObject(req.config, l.ephemeralResource(typeName).type, "ephemeral resource configuration");
  return { diagnostics: toProtoDiagnostics((await l.provider.validateEphemeralResourceConfig(typeName, config)).diagnostics) };
}

async function openEphemeralResource(req: tfplugin6.OpenEphemeralResource.IRequest, l: Loaded): Promise<tfplugin6.OpenEphemeralResource.IResponse> {
  const typeName = req.typeName ?? "";
  const { type } = l.ephemeralResource(typeName);
  const result = await l.provider.openEphemeralResource(typeName, requireObject(req.config, type, "ephemeral resource configuration"));
  return {
    result: encodeResult(result.result, type, "ephemeral value"),
    ...(result.renewAt ? { renewAt: toProtoTimestamp(result.renewAt) } : {}),
    ...(result.private ? { private: result.private } : {}),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function renewEphemeralResource(req: tfplugin6.RenewEphemeralResource.IRequest, l: Loaded): Promise<tfplugin6.RenewEphemeralResource.IResponse> {
  const typeName = req.typeName ?? "";
  l.ephemeralResource(typeName);
  const result = await l.provider.renewEphemeralResource(typeName, priv(req.private));
  // The engine keeps only what this answer carries, so the old private data goes back unless replaced.
  const kept = result.private ?? priv(req.private);
  return {
    ...(result.renewAt ? { renewAt: toProtoTimestamp(result.renewAt) } : {}),
    ...(kept ? { private: kept } : {}),
    diagnostics: toProtoDiagnostics(result.diagnostics),
  };
}

async function closeEphemeralResource(req: tfplugin6.CloseEphemeralResource.IRequest, l: Loaded): Promise<tfplugin6.CloseEphemeralResource.IResponse> {
  const typeName = req.typeName ?? "";
  l.ephemeralResource(typeName);
  return { diagnostics: toProtoDiagnostics((await l.provider.closeEphemeralResource(typeName, priv(req.private))).diagnostics) };
}

async function getFunctions(_req: tfplugin6.GetFunctions.IRequest, l: Loaded): Promise<tfplugin6.GetFunctions.IResponse> {
  return { functions: protoFunctions(l.schemas), diagnostics: [] };
}

/** Every call answered with diagnostics but GetProviderSchema, which the build may have answered already. */
const DIAGNOSED: readonly Route[] = [
  route("GetMetadata", P.GetMetadata.Request, P.GetMetadata.Response, getMetadata),
  route("ValidateProviderConfig", P.ValidateProviderConfig.Request, P.ValidateProviderConfig.Response, validateProviderConfig),
  route("ConfigureProvider", P.ConfigureProvider.Request, P.ConfigureProvider.Response, configureProvider),
  route("ValidateResourceConfig", P.ValidateResourceConfig.Request, P.ValidateResourceConfig.Response, validateResourceConfig),
  route("ValidateDataResourceConfig", P.ValidateDataResourceConfig.Request, P.ValidateDataResourceConfig.Response, validateDataResourceConfig),
  route("UpgradeResourceState", P.UpgradeResourceState.Request, P.UpgradeResourceState.Response, upgradeResourceState),
  route("ReadResource", P.ReadResource.Request, P.ReadResource.Response, readResource),
  route("PlanResourceChange", P.PlanResourceChange.Request, P.PlanResourceChange.Response, planResourceChange),
  route("ApplyResourceChange", P.ApplyResourceChange.Request, P.ApplyResourceChange.Response, applyResourceChange),
  route("ImportResourceState", P.ImportResourceState.Request, P.ImportResourceState.Response, importResourceState),
  route("ReadDataSource", P.ReadDataSource.Request, P.ReadDataSource.Response, readDataSource),
  route(
    "ValidateEphemeralResourceConfig",
    P.ValidateEphemeralResourceConfig.Request,
    P.ValidateEphemeralResourceConfig.Response,
    validateEphemeralResourceConfig,
  ),
  route("OpenEphemeralResource", P.OpenEphemeralResource.Request, P.OpenEphemeralResource.Response, openEphemeralResource),
  route("RenewEphemeralResource", P.RenewEphemeralResource.Request, P.RenewEphemeralResource.Response, renewEphemeralResource),
  route("CloseEphemeralResource", P.CloseEphemeralResource.Request, P.CloseEphemeralResource.Response, closeEphemeralResource),
  route("GetFunctions", P.GetFunctions.Request, P.GetFunctions.Response, getFunctions),
];

// --- service ----------------------------------------------------------------------------

export interface ProviderServiceOptions {
  readonly log: Logger;
  /** The encoded GetProviderSchema answer, when the build computed it (encodeProviderSchemaResponse). */
  readonly schemaResponse?: Uint8Array;
}

/** The process's provider, loaded on first need, and the calls in progress on it. */
class ProviderService {
  private loading: Promise<Loaded> | undefined;
  private provider: ProviderServer | undefined;
  // The calls in progress, each until its answer is on the socket: what a SIGTERM lets finish,
  // stopped as by StopProvider. Only when there are some: a stopped provider also cancels the
  // requests its release would make (revoking a proxy token), which a SIGTERM must leave to it.
  private readonly inProgress = new Set<Promise<void>>();
  private readonly forget: () => void;

  constructor(
    private readonly load: () => Promise<ProviderServer>,
    private readonly log: Logger,
  ) {
    this.forget = settleBeforeExit(this.settle);
  }

  /** What a SIGTERM runs: the calls in progress stopped as by StopProvider, resolved once each is answered. */
  readonly settle = async (): Promise<void> => {
    if (this.inProgress.size === 0) return;
    if (this.provider) await this.provider.stop();
    await Promise.all(this.inProgress);
  };

  loaded(): Promise<Loaded> {
    if (this.loading) return this.loading;
    const start = now();
    return (this.loading = this.load().then(
      (p) => {
        mark("provider loaded", { start });
        this.provider = p;
        return new Loaded(p);
      },
      (e: unknown) => {
        this.log("error", "loading the provider failed", errorFields(e));
        throw new Failure(error("Failed to load the provider", describeError(e)));
      },
    ));
  }

  private toDiagnostic(method: string, e: unknown): tfplugin6.IDiagnostic {
    if (e instanceof Failure) return toProtoDiagnostic(e.diagnostic);
    if (e instanceof CodecError) {
      const detail = `${method}: the value does not conform to the provider schema: ${e.message}`;
      return toProtoDiagnostic(error("Invalid value from the engine", detail, e.path.length > 0 ? e.path : undefined));
    }
    this.log("error", `${method}: provider error`, errorFields(e));
    return toProtoDiagnostic(error("Unexpected provider error", `${method}: ${describeError(e)}`));
  }

  /** One call of the table: counted in progress until answered; a failure is its answer's one diagnostic. */
  async answer<Req, Res extends Diagnosed>(
    method: string,
    bytes: Uint8Array,
    call: CallContext,
    reqType: Codec<Req>,
    resType: Encoder<Res>,
    handle: (req: Req, l: Loaded) => Promise<Res>,
  ): Promise<Uint8Array> {
    const answered = new Promise<void>((resolve) => call.afterResponse(resolve));
    this.inProgress.add(answered);
    void answered.then(() => this.inProgress.delete(answered));
    const req = reqType.decode(bytes);
    let res: Res;
    try {
      res = await handle(req, await this.loaded());
    } catch (e) {
      res = { diagnostics: [this.toDiagnostic(method, e)] } as Res;
    }
    return resType.encode(res).finish();
  }

  // Not in the table: a function answers with a FunctionError, which has no diagnostics.
  async callFunction(bytes: Uint8Array): Promise<Uint8Array> {
    const req = P.CallFunction.Request.decode(bytes);
    const name = req.name ?? "";
    let res: tfplugin6.CallFunction.IResponse;
    try {
      res = await callFunction(await this.loaded(), name, req.arguments ?? []);
    } catch (e) {
      const text = e instanceof Failure ? [e.diagnostic.summary, e.diagnostic.detail].filter(Boolean).join(": ") : `${name}: ${describeError(e)}`;
      if (!(e instanceof Failure)) this.log("error", `CallFunction ${name}: provider error`, errorFields(e));
      res = { error: { text } };
    }
    return P.CallFunction.Response.encode(res).finish();
  }

  // Ctrl-C in the engine. Not in the table: it has no diagnostics, only an error string, and
  // must not trigger loading a provider that was never needed.
  async stopProvider(bytes: Uint8Array): Promise<Uint8Array> {
    P.StopProvider.Request.decode(bytes);
    let message = "";
    try {
      if (this.provider) await this.provider.stop();
    } catch (e) {
      message = describeError(e);
      this.log("error", "StopProvider: provider error", { error: message });
    }
    return P.StopProvider.Response.encode({ Error: message }).finish();
  }

  async release(): Promise<void> {
    this.forget();
    // Only a provider that was loaded can hold anything.
    if (this.provider) await this.provider.close();
  }
}

/**
 * Registers the Provider RPCs. `load` is called on the first call that needs the provider and
 * shared after: a start that only fetches the schema never loads it (nor the API client, zod
 * and undici behind it).
 */
export function registerProviderService(
  server: GrpcServer,
  load: () => Promise<ProviderServer>,
  options: ProviderServiceOptions,
): { release(): Promise<void>; settle(): Promise<void> } {
  const service = new ProviderService(load, options.log);
  const registrar: Registrar = {
    rpc: (method, reqType, resType, handle) =>
      void server.unary(SERVICE + method, (bytes, call) => service.answer(method, bytes, call, reqType, resType, handle)),
  };
  for (const r of DIAGNOSED) r(registrar);
  // The engines' first call on every start. With the answer precomputed by the build, it needs
  // neither the provider nor a single encode.
  const precomputed = options.schemaResponse;
  if (precomputed) {
    server.unary(SERVICE + "GetProviderSchema", (bytes) => {
      P.GetProviderSchema.Request.decode(bytes);
      return precomputed;
    });
  } else {
    registrar.rpc("GetProviderSchema", P.GetProviderSchema.Request, P.GetProviderSchema.Response, getProviderSchema);
  }
  server.unary(SERVICE + "CallFunction", (bytes) => service.callFunction(bytes));
  server.unary(SERVICE + "StopProvider", (bytes) => service.stopProvider(bytes));
  return { release: () => service.release(), settle: service.settle };
}
