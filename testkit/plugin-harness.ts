/**
 * Plays the engine's part against a plugin executable, the way go-plugin does it for
 * Terraform: a P-521/SHA-512 client certificate in PLUGIN_CLIENT_CERT, the magic cookie and
 * protocol versions in the environment, the handshake line parsed and checked field by field,
 * then gRPC over mutual TLS that trusts only the certificate from the handshake.
 *
 * It uses @grpc/grpc-js and @grpc/proto-loader on our own .proto files, an implementation
 * independent of the plugin's hand-written server, and exposes one helper per RPC that
 * takes and returns decoded values (via the codec) against the schema the plugin served.
 *
 *   const h = await PluginHarness.start({ executable });
 *   await h.getProviderSchema();
 *   const plan = await h.planResourceChange("mgmt_widget", { priorState: null, proposedNewState, config });
 *   expect(await h.shutdown()).toBe(0);
 */
import { type ChildProcess, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import * as http2 from "node:http2";
import * as net from "node:net";
import * as tls from "node:tls";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { AttributePath, Diagnostic, PathStep } from "../src/provider/framework/diagnostics";
import { type Attribute, type Block, type BlockType, type Schema, blockType } from "../src/provider/framework/schema";
import type { ObjectValue, TfType, TfValue } from "../src/provider/framework/value";
import { decodeJsonValue, decodeValue, encodeValue } from "../src/plugin/codec";
import { repoPath } from "../src/harness/paths";
import { MAGIC_COOKIE_VALUE } from "../src/plugin/handshake";
import { type SelfSignedCertificate, createSelfSignedCertificate, toPem } from "../src/plugin/tls";

// From the repository root, so that bench programs bundled into .tmp/ find the files too.
export const PROTO_DIR = repoPath("src", "plugin", "proto");
const MAX_MESSAGE = 256 * 1024 * 1024;

// --- wire shapes (proto-loader with keepCase: field names as in the .proto) ---------------

export interface DynamicValueMsg {
  msgpack?: Buffer;
  json?: Buffer;
}
export interface StepMsg {
  selector?: "attribute_name" | "element_key_string" | "element_key_int";
  attribute_name?: string;
  element_key_string?: string;
  element_key_int?: number;
}
export interface AttributePathMsg {
  steps: StepMsg[];
}
export interface DiagnosticMsg {
  severity: "INVALID" | "ERROR" | "WARNING";
  summary: string;
  detail: string;
  attribute?: AttributePathMsg | null;
}
export interface AttributeMsg {
  name: string;
  type: Buffer;
  description: string;
  description_kind: "PLAIN" | "MARKDOWN";
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  deprecated: boolean;
}
export interface BlockMsg {
  version: number;
  attributes: AttributeMsg[];
  block_types: { type_name: string; block: BlockMsg | null; nesting: string; min_items: number; max_items: number }[];
  description: string;
  description_kind: "PLAIN" | "MARKDOWN";
  deprecated: boolean;
}
export interface SchemaMsg {
  version: number;
  block: BlockMsg | null;
}
export interface GetProviderSchemaMsg {
  provider: SchemaMsg | null;
  resource_schemas: Record<string, SchemaMsg>;
  data_source_schemas: Record<string, SchemaMsg>;
  diagnostics: DiagnosticMsg[];
  provider_meta: SchemaMsg | null;
  server_capabilities: { plan_destroy: boolean; get_provider_schema_optional: boolean; move_resource_state: boolean } | null;
}

// --- conversions back from the wire -------------------------------------------------------

export function pathFromProto(p: AttributePathMsg | null | undefined): AttributePath | undefined {
  if (!p || p.steps.length === 0) return undefined;
  return p.steps.map((s): PathStep => {
    if (s.selector === "element_key_string") return { key: s.element_key_string ?? "" };
    if (s.selector === "element_key_int") return { index: Number(s.element_key_int) };
    return { attribute: s.attribute_name ?? "" };
  });
}

export function diagnosticsFromProto(ds: DiagnosticMsg[] | undefined): Diagnostic[] {
  return (ds ?? []).map((d) => {
    if (d.severity !== "ERROR" && d.severity !== "WARNING") throw new Error(`diagnostic with severity ${d.severity}: ${d.summary}`);
    const attribute = pathFromProto(d.attribute);
    return {
      severity: d.severity === "ERROR" ? "error" : "warning",
      summary: d.summary,
      ...(d.detail ? { detail: d.detail } : {}),
      ...(attribute ? { attribute } : {}),
    };
  });
}

const NESTING: Record<string, BlockType["nesting_mode"]> = { SINGLE: "single", LIST: "list", SET: "set", MAP: "map", GROUP: "group" };

/** A served schema in our JSON shape (the attribute type bytes parsed as type JSON). */
export function schemaFromProto(s: SchemaMsg | null | undefined): Schema {
  if (!s?.block) throw new Error("schema without a block (Terraform would crash on it)");
  return { version: Number(s.version), block: blockFromProto(s.block) };
}

function blockFromProto(b: BlockMsg): Block {
  const attributes: Record<string, Attribute> = {};
  for (const a of b.attributes) {
    attributes[a.name] = {
      type: JSON.parse(a.type.toString("utf8")) as TfType,
      ...(a.description ? { description: a.description } : {}),
      ...(a.description_kind === "MARKDOWN" ? { description_kind: "markdown" as const } : {}),
      ...(a.required ? { required: true } : {}),
      ...(a.optional ? { optional: true } : {}),
      ...(a.computed ? { computed: true } : {}),
      ...(a.sensitive ? { sensitive: true } : {}),
      ...(a.deprecated ? { deprecated: true } : {}),
    };
  }
  const blockTypes: Record<string, BlockType> = {};
  for (const bt of b.block_types) {
    const nesting = NESTING[bt.nesting];
    if (!nesting || !bt.block) throw new Error(`block type ${bt.type_name}: nesting ${bt.nesting}, block ${bt.block ? "present" : "missing"}`);
    blockTypes[bt.type_name] = {
      nesting_mode: nesting,
      block: blockFromProto(bt.block),
      ...(bt.min_items ? { min_items: Number(bt.min_items) } : {}),
      ...(bt.max_items ? { max_items: Number(bt.max_items) } : {}),
    };
  }
  return {
    ...(b.attributes.length ? { attributes } : {}),
    ...(b.block_types.length ? { block_types: blockTypes } : {}),
    ...(b.description ? { description: b.description } : {}),
    ...(b.description_kind === "MARKDOWN" ? { description_kind: "markdown" as const } : {}),
    ...(b.deprecated ? { deprecated: true } : {}),
  };
}

// --- handshake ------------------------------------------------------------------------------

export interface Handshake {
  readonly line: string;
  readonly coreVersion: number;
  readonly protocolVersion: number;
  readonly network: "unix" | "tcp";
  readonly address: string;
  readonly protocol: string;
  /** Absent when started without PLUGIN_CLIENT_CERT. */
  readonly serverCert?: X509Certificate;
  readonly serverCertDer?: Buffer;
}

/** Parses and checks the line as go-plugin's client would, plus the certificate rules Go's TLS applies. */
export function parseHandshake(line: string, expectCert: boolean, now = new Date()): Handshake {
  const parts = line.trim().split("|");
  const want = expectCert ? 6 : 5;
  if (parts.length !== want) throw new Error(`handshake has ${parts.length} fields, want ${want}: ${line}`);
  const [core, proto, network, address, protocol, cert] = parts;
  if (core !== "1") throw new Error(`core protocol version ${core}, want 1`);
  if (proto !== "6") throw new Error(`app protocol version ${proto}, want 6`);
  if (network !== "unix" && network !== "tcp") throw new Error(`unknown network ${network}`);
  if (!address) throw new Error("empty address");
  if (protocol !== "grpc") throw new Error(`protocol ${protocol}, want grpc`);
  if (!expectCert) return { line, coreVersion: 1, protocolVersion: 6, network, address, protocol };

  // go-plugin uses base64.RawStdEncoding: standard alphabet, no padding.
  if (!/^[A-Za-z0-9+/]+$/.test(cert)) throw new Error("certificate is not unpadded standard base64");
  if (cert.length % 4 === 1) throw new Error("certificate base64 has an impossible length");
  const der = Buffer.from(cert, "base64");
  const x509 = new X509Certificate(der);
  if (!(x509.subjectAltName ?? "").split(", ").includes("DNS:localhost")) throw new Error(`certificate SAN ${x509.subjectAltName}, want DNS:localhost`);
  if (new Date(x509.validFrom) > now || new Date(x509.validTo) < now) throw new Error(`certificate not valid now: ${x509.validFrom} .. ${x509.validTo}`);
  if (!x509.verify(x509.publicKey)) throw new Error("certificate is not self-signed");
  if (x509.keyUsage && !x509.keyUsage.includes("1.3.6.1.5.5.7.3.1")) throw new Error("certificate lacks extKeyUsage serverAuth");
  return { line, coreVersion: 1, protocolVersion: 6, network, address, protocol, serverCert: x509, serverCertDer: der };
}

/**
 * An HTTP/2 session to the plugin the way go-plugin dials it: TLS with ALPN h2 and server name
 * localhost, trusting only the handshake's certificate, presenting `clientCert` (none: plaintext
 * h2 when the handshake has no certificate, or a TLS client without a certificate).
 * TLS-level errors go to `onTlsError`; the session reports them too, less precisely.
 */
export function connectH2(
  handshake: Handshake,
  clientCert: { certPem: string; keyPem: string } | undefined,
  onTlsError?: (e: Error) => void,
): http2.ClientHttp2Session {
  const where =
    handshake.network === "unix" ? { path: handshake.address } : { host: handshake.address.split(":")[0], port: Number(handshake.address.split(":")[1]) };
  if (!handshake.serverCertDer) return http2.connect("http://localhost", { createConnection: () => net.connect(where) });
  return http2.connect("https://localhost", {
    createConnection: () => {
      const socket = tls.connect({
        ...where,
        servername: "localhost",
        ALPNProtocols: ["h2"],
        ca: toPem(handshake.serverCertDer!),
        ...(clientCert ? { cert: clientCert.certPem, key: clientCert.keyPem } : {}),
      });
      if (onTlsError) socket.on("error", onTlsError);
      return socket;
    },
  });
}

/**
 * An HTTP/2 request over TLS with the given client certificate; resolves with the :status.
 * With TLS 1.3 a refused client certificate surfaces after the client's handshake completes,
 * as a reset stream or a closed session rather than an 'error'; both count as refusal.
 */
export function connectAndRequest(h: { readonly handshake: Handshake }, clientCert: { certPem: string; keyPem: string } | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    let tlsError: Error | undefined;
    const session = connectH2(h.handshake, clientCert, (e) => (tlsError = e));
    const refused = (why: string) => reject(new Error(`refused: ${why}${tlsError ? ` (${tlsError.message})` : ""}`));
    session.on("error", (e) => refused(e.message));
    session.on("close", () => refused("session closed"));
    const req = session.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/grpc", te: "trailers" });
    req.on("error", (e) => refused(e.message));
    req.on("close", () => refused(`stream closed with code ${req.rstCode}`));
    req.on("response", (headers) => {
      resolve(Number(headers[":status"]));
      session.close();
    });
    req.end(Buffer.from([0, 0, 0, 0, 0]));
  });
}

// --- the harness ----------------------------------------------------------------------------

export interface HarnessOptions {
  readonly executable: string;
  readonly args?: readonly string[];
  /** Added to the engine-like environment; `undefined` removes a variable. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** false: start as with TF_DISABLE_PLUGIN_TLS (no PLUGIN_CLIENT_CERT, plaintext h2). */
  readonly tls?: boolean;
  readonly cwd?: string;
  readonly startTimeoutMs?: number;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

interface Loaded {
  readonly resources: Map<string, TfType>;
  readonly dataSources: Map<string, TfType>;
  readonly provider: TfType;
}

type Client = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** Process output, collected from spawn on so nothing is lost between the handshake and later reads. */
export interface Output {
  stdout: string;
  stderr: string;
}

// --- starting a plugin as go-plugin does ----------------------------------------------------

/** go-plugin's AutoMTLS client certificate: ECDSA P-521, SHA-512, O=HashiCorp, CN=localhost. */
export const goPluginClientCertificate = (): SelfSignedCertificate =>
  createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp" });

/** Environment a go-plugin client gives its plugin (on top of the parent's, like exec.Cmd). */
export function engineEnv(clientCertPem: string | undefined, extra: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("PLUGIN_") || k.startsWith("TF_PLUGIN_")) delete env[k];
  Object.assign(env, {
    TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: "5,6",
    PLUGIN_MIN_PORT: "10000",
    PLUGIN_MAX_PORT: "25000",
    ...(clientCertPem ? { PLUGIN_CLIENT_CERT: clientCertPem } : {}),
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface Launched {
  readonly child: ChildProcess;
  readonly handshake: Handshake;
  /** The certificate the plugin must accept; absent with `tls: false`. */
  readonly clientCert: SelfSignedCertificate | undefined;
  /** Milliseconds from spawn to the handshake line. */
  readonly startMs: number;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
  readonly exited: Promise<Exit>;
  readonly output: Output;
}

/**
 * Spawns the plugin with an engine's environment and waits for its handshake line, checked as
 * go-plugin's client checks it. Everything after (dialing, calls) is up to the caller.
 */
export async function launchPlugin(options: HarnessOptions & { readonly clientCert?: SelfSignedCertificate }): Promise<Launched> {
  const tls = options.tls ?? true;
  const clientCert = tls ? (options.clientCert ?? goPluginClientCertificate()) : undefined;
  const spawnedAt = performance.now();
  // stdin as /dev/null, as when the engine itself runs without a terminal (CI).
  const child = spawn(options.executable, [...(options.args ?? [])], {
    env: engineEnv(clientCert?.certPem, options.env),
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const output: Output = { stdout: "", stderr: "" };
  child.stderr!.on("data", (d: Buffer) => (output.stderr += d.toString()));

  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    let handshakeDone = false;
    const timer = setTimeout(() => fail(new Error(`no handshake within ${options.startTimeoutMs ?? 10000} ms`)), options.startTimeoutMs ?? 10000);
    const onData = (d: Buffer) => {
      if (handshakeDone) {
        output.stdout += d.toString();
        return;
      }
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        handshakeDone = true;
        cleanup();
        output.stdout = out.slice(nl + 1);
        resolve(out.slice(0, nl));
      }
    };
    const onExit = (code: number | null) => fail(new Error(`plugin exited (${code}) before the handshake; stdout: ${JSON.stringify(out)}`));
    const fail = (e: Error) => {
      cleanup();
      child.kill("SIGKILL");
      reject(new Error(`${e.message}\nstderr:\n${output.stderr}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
    };
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
  const startMs = performance.now() - spawnedAt;

  let handshake: Handshake;
  try {
    handshake = parseHandshake(line, tls);
  } catch (e) {
    child.kill("SIGKILL");
    throw e;
  }
  return { child, handshake, clientCert, startMs, spawnedAt, exited, output };
}

export class PluginHarness {
  private types?: Loaded;
  private readonly clients: Record<string, Client>;
  readonly exited: Promise<Exit>;

  private constructor(
    readonly child: ChildProcess,
    readonly handshake: Handshake,
    readonly clientCert: SelfSignedCertificate | undefined,
    /** Milliseconds from spawn to the handshake line. */
    readonly startMs: number,
    readonly channel: grpc.Channel,
    packages: grpc.GrpcObject,
    exited: Promise<Exit>,
    private readonly output: Output,
  ) {
    this.exited = exited;
    const ctor = (path: string) => {
      let o: unknown = packages;
      for (const part of path.split(".")) o = (o as Record<string, unknown>)[part];
      return o as grpc.ServiceClientConstructor;
    };
    const make = (path: string) => new (ctor(path))("unused", grpc.credentials.createInsecure(), { channelOverride: channel }) as unknown as Client;
    this.clients = {
      provider: make("tfplugin6.Provider"),
      controller: make("plugin.GRPCController"),
      stdio: make("plugin.GRPCStdio"),
      broker: make("plugin.GRPCBroker"),
      health: make("grpc.health.v1.Health"),
    };
  }

  static async start(options: HarnessOptions): Promise<PluginHarness> {
    const { child, handshake, clientCert, startMs, exited, output } = await launchPlugin(options);
    const target = handshake.network === "unix" ? `unix:${handshake.address}` : handshake.address;
    const credentials =
      handshake.serverCertDer && clientCert
        ? grpc.credentials.createSsl(Buffer.from(toPem(handshake.serverCertDer)), Buffer.from(clientCert.keyPem), Buffer.from(clientCert.certPem))
        : grpc.credentials.createInsecure();
    const channel = new grpc.Channel(target, credentials, {
      "grpc.ssl_target_name_override": "localhost",
      "grpc.default_authority": "localhost",
      "grpc.max_receive_message_length": MAX_MESSAGE,
      "grpc.max_send_message_length": MAX_MESSAGE,
    });
    const definition = protoLoader.loadSync(["tfplugin6.proto", "plugin.proto", "health.proto"], {
      includeDirs: [PROTO_DIR],
      keepCase: true,
      longs: Number,
      enums: String,
      bytes: Buffer,
      defaults: true,
      oneofs: true,
    });
    return new PluginHarness(child, handshake, clientCert, startMs, channel, grpc.loadPackageDefinition(definition), exited, output);
  }

  /** Everything the plugin wrote to stderr so far. */
  get stderr(): string {
    return this.output.stderr;
  }

  /** Anything on stdout after the handshake line (the engine discards it; should be empty). */
  get stdoutAfterHandshake(): string {
    return this.output.stdout;
  }

  // --- raw calls --------------------------------------------------------------------------

  /** A unary call through the generated client: `service` is provider|controller|stdio|health. */
  unary<Res>(service: string, method: string, request: object, timeoutMs = 30000): Promise<Res> {
    const client = this.clients[service];
    if (!client) throw new Error(`no client ${service}`);
    return new Promise((resolve, reject) => {
      const fn = client[method];
      if (typeof fn !== "function") return reject(new Error(`${service} has no method ${method}`));
      fn.call(client, request, { deadline: Date.now() + timeoutMs }, (err: grpc.ServiceError | null, res: Res) => (err ? reject(err) : resolve(res)));
    });
  }

  /** A unary call to any path with raw bytes, for methods our .proto files do not declare. */
  rawUnary(path: string, body: Buffer = Buffer.alloc(0)): Promise<Buffer> {
    const client = this.clients.provider;
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        body,
        (err: grpc.ServiceError | null, res?: Buffer) => (err ? reject(err) : resolve(res ?? Buffer.alloc(0))),
      );
    });
  }

  // --- go-plugin services -----------------------------------------------------------------

  async healthCheck(service = "plugin"): Promise<string> {
    const res = await this.unary<{ status: string }>("health", "Check", { service });
    return res.status;
  }

  /** Collects the whole StdioData stream; resolves when the plugin ends it. */
  streamStdio(): Promise<{ channel: string; data: Buffer }[]> {
    return new Promise((resolve, reject) => {
      const out: { channel: string; data: Buffer }[] = [];
      const stream = (this.clients.stdio.StreamStdio as (req: object) => grpc.ClientReadableStream<{ channel: string; data: Buffer }>)({});
      stream.on("data", (m) => out.push(m));
      stream.on("error", reject);
      stream.on("end", () => resolve(out));
    });
  }

  /** GRPCController.Shutdown, then waits for the process to go; resolves with its exit code. */
  async shutdown(timeoutMs = 10000): Promise<number | null> {
    try {
      await this.unary("controller", "Shutdown", {}, timeoutMs);
    } catch {
      // The process may be gone before the answer arrives; the exit below is what counts.
    }
    this.channel.close();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit.code;
  }

  /** For test cleanup: make sure nothing is left running. */
  async kill(): Promise<void> {
    this.channel.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }

  // --- tfplugin6.Provider, with decoded values --------------------------------------------

  private async loadTypes(): Promise<Loaded> {
    if (!this.types) await this.getProviderSchema();
    return this.types!;
  }

  private async typeOf(kind: "resource" | "data", typeName: string): Promise<TfType> {
    const t = await this.loadTypes();
    const type = (kind === "resource" ? t.resources : t.dataSources).get(typeName);
    // An unknown type still gets sent (to test the plugin's answer), encoded as an empty object.
    return type ?? ["object", {}];
  }

  encode(value: TfValue, type: TfType): DynamicValueMsg {
    return { msgpack: Buffer.from(encodeValue(value, type)) };
  }

  decode(dv: DynamicValueMsg | null | undefined, type: TfType): TfValue {
    if (dv?.msgpack && dv.msgpack.length > 0) return decodeValue(dv.msgpack, type);
    if (dv?.json && dv.json.length > 0) return decodeJsonValue(JSON.parse(dv.json.toString("utf8")), type);
    return null;
  }

  private decodeObject(dv: DynamicValueMsg | null | undefined, type: TfType): ObjectValue | null {
    return this.decode(dv, type) as ObjectValue | null;
  }

  async getMetadata(): Promise<{ resources: string[]; dataSources: string[]; diagnostics: Diagnostic[]; raw: unknown }> {
    const raw = await this.unary<{ resources: { type_name: string }[]; data_sources: { type_name: string }[]; diagnostics: DiagnosticMsg[] }>(
      "provider",
      "GetMetadata",
      {},
    );
    return {
      resources: raw.resources.map((r) => r.type_name),
      dataSources: raw.data_sources.map((r) => r.type_name),
      diagnostics: diagnosticsFromProto(raw.diagnostics),
      raw,
    };
  }

  async getProviderSchema(): Promise<{
    provider: Schema;
    resources: Record<string, Schema>;
    dataSources: Record<string, Schema>;
    providerMeta: Schema;
    diagnostics: Diagnostic[];
    raw: GetProviderSchemaMsg;
  }> {
    const raw = await this.unary<GetProviderSchemaMsg>("provider", "GetProviderSchema", {});
    const diagnostics = diagnosticsFromProto(raw.diagnostics);
    if (diagnostics.some((d) => d.severity === "error")) {
      return { provider: { version: 0, block: {} }, resources: {}, dataSources: {}, providerMeta: { version: 0, block: {} }, diagnostics, raw };
    }
    const resources = Object.fromEntries(Object.entries(raw.resource_schemas).map(([k, s]) => [k, schemaFromProto(s)]));
    const dataSources = Object.fromEntries(Object.entries(raw.data_source_schemas).map(([k, s]) => [k, schemaFromProto(s)]));
    const provider = schemaFromProto(raw.provider);
    this.types = {
      provider: blockType(provider.block),
      resources: new Map(Object.entries(resources).map(([k, s]) => [k, blockType(s.block)])),
      dataSources: new Map(Object.entries(dataSources).map(([k, s]) => [k, blockType(s.block)])),
    };
    return { provider, resources, dataSources, providerMeta: schemaFromProto(raw.provider_meta), diagnostics, raw };
  }

  async validateProviderConfig(config: ObjectValue): Promise<{ diagnostics: Diagnostic[] }> {
    const { provider } = await this.loadTypes();
    const raw = await this.unary<{ diagnostics: DiagnosticMsg[] }>("provider", "ValidateProviderConfig", { config: this.encode(config, provider) });
    return { diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async configureProvider(config: ObjectValue, terraformVersion = "1.11.4"): Promise<{ diagnostics: Diagnostic[] }> {
    const { provider } = await this.loadTypes();
    const raw = await this.unary<{ diagnostics: DiagnosticMsg[] }>("provider", "ConfigureProvider", {
      terraform_version: terraformVersion,
      config: this.encode(config, provider),
    });
    return { diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async validateResourceConfig(typeName: string, config: ObjectValue): Promise<{ diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("resource", typeName);
    const raw = await this.unary<{ diagnostics: DiagnosticMsg[] }>("provider", "ValidateResourceConfig", {
      type_name: typeName,
      config: this.encode(config, type),
    });
    return { diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async validateDataResourceConfig(typeName: string, config: ObjectValue): Promise<{ diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("data", typeName);
    const raw = await this.unary<{ diagnostics: DiagnosticMsg[] }>("provider", "ValidateDataResourceConfig", {
      type_name: typeName,
      config: this.encode(config, type),
    });
    return { diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  /** `rawState` is what the state file holds for the instance (its JSON `attributes`). */
  async upgradeResourceState(typeName: string, version: number, rawState: unknown): Promise<{ upgradedState: ObjectValue | null; diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("resource", typeName);
    const raw = await this.unary<{ upgraded_state: DynamicValueMsg | null; diagnostics: DiagnosticMsg[] }>("provider", "UpgradeResourceState", {
      type_name: typeName,
      version,
      raw_state: { json: Buffer.from(JSON.stringify(rawState)) },
    });
    return { upgradedState: this.decodeObject(raw.upgraded_state, type), diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async readResource(
    typeName: string,
    currentState: ObjectValue,
    priv?: Uint8Array,
  ): Promise<{ newState: ObjectValue | null; private: Buffer; diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("resource", typeName);
    const raw = await this.unary<{ new_state: DynamicValueMsg | null; private: Buffer; diagnostics: DiagnosticMsg[] }>("provider", "ReadResource", {
      type_name: typeName,
      current_state: this.encode(currentState, type),
      private: priv ? Buffer.from(priv) : Buffer.alloc(0),
    });
    return { newState: this.decodeObject(raw.new_state, type), private: raw.private, diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async planResourceChange(
    typeName: string,
    req: { priorState: ObjectValue | null; proposedNewState: ObjectValue | null; config: ObjectValue | null; priorPrivate?: Uint8Array },
  ): Promise<{ plannedState: ObjectValue | null; requiresReplace: AttributePath[]; plannedPrivate: Buffer; diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("resource", typeName);
    const raw = await this.unary<{
      planned_state: DynamicValueMsg | null;
      requires_replace: AttributePathMsg[];
      planned_private: Buffer;
      diagnostics: DiagnosticMsg[];
    }>("provider", "PlanResourceChange", {
      type_name: typeName,
      prior_state: this.encode(req.priorState, type),
      proposed_new_state: this.encode(req.proposedNewState, type),
      config: this.encode(req.config, type),
      prior_private: req.priorPrivate ? Buffer.from(req.priorPrivate) : Buffer.alloc(0),
    });
    return {
      plannedState: this.decodeObject(raw.planned_state, type),
      requiresReplace: raw.requires_replace.map((p) => pathFromProto(p) ?? []),
      plannedPrivate: raw.planned_private,
      diagnostics: diagnosticsFromProto(raw.diagnostics),
    };
  }

  async applyResourceChange(
    typeName: string,
    req: { priorState: ObjectValue | null; plannedState: ObjectValue | null; config: ObjectValue | null; plannedPrivate?: Uint8Array },
  ): Promise<{ newState: ObjectValue | null; private: Buffer; diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("resource", typeName);
    const raw = await this.unary<{ new_state: DynamicValueMsg | null; private: Buffer; diagnostics: DiagnosticMsg[] }>("provider", "ApplyResourceChange", {
      type_name: typeName,
      prior_state: this.encode(req.priorState, type),
      planned_state: this.encode(req.plannedState, type),
      config: this.encode(req.config, type),
      planned_private: req.plannedPrivate ? Buffer.from(req.plannedPrivate) : Buffer.alloc(0),
    });
    return { newState: this.decodeObject(raw.new_state, type), private: raw.private, diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async importResourceState(
    typeName: string,
    id: string,
  ): Promise<{ imported: { typeName: string; state: ObjectValue | null; private: Buffer }[]; diagnostics: Diagnostic[] }> {
    await this.loadTypes();
    const raw = await this.unary<{ imported_resources: { type_name: string; state: DynamicValueMsg | null; private: Buffer }[]; diagnostics: DiagnosticMsg[] }>(
      "provider",
      "ImportResourceState",
      { type_name: typeName, id },
    );
    const imported = [];
    for (const r of raw.imported_resources) {
      imported.push({ typeName: r.type_name, state: this.decodeObject(r.state, await this.typeOf("resource", r.type_name)), private: r.private });
    }
    return { imported, diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async readDataSource(typeName: string, config: ObjectValue): Promise<{ state: ObjectValue | null; diagnostics: Diagnostic[] }> {
    const type = await this.typeOf("data", typeName);
    const raw = await this.unary<{ state: DynamicValueMsg | null; diagnostics: DiagnosticMsg[] }>("provider", "ReadDataSource", {
      type_name: typeName,
      config: this.encode(config, type),
    });
    return { state: this.decodeObject(raw.state, type), diagnostics: diagnosticsFromProto(raw.diagnostics) };
  }

  async stopProvider(): Promise<{ error: string }> {
    const raw = await this.unary<{ Error: string }>("provider", "StopProvider", {});
    return { error: raw.Error };
  }
}
