/** Shared by the data source tests: a provider on an in-process server, reads, and a field-by-field comparison with the API. */
import { createProvider } from "../../../src/provider";
import type { Diagnostic } from "../../../src/provider/framework/diagnostics";
import type { ProviderServer } from "../../../src/provider/framework/server";
import type { ObjectValue, TfValue } from "../../../src/provider/framework/value";
import { call, type TestServer } from "../../server/helpers";

export async function providerFor(server: TestServer, token = server.token!): Promise<ProviderServer> {
  const provider = createProvider({ env: { MGMT_URL: server.url, MGMT_TOKEN: token } });
  const configured = await provider.configure({ url: null, token: null });
  if (configured.diagnostics.length > 0) throw new Error(JSON.stringify(configured.diagnostics));
  return provider;
}

/** Reads a data source with these arguments (every other attribute null, as the engines send). */
export async function read(
  provider: ProviderServer,
  typeName: string,
  args: ObjectValue = {},
): Promise<{ state: ObjectValue | null; diagnostics: readonly Diagnostic[] }> {
  const { attributes = {}, block_types: blocks = {} } = provider.schemas().dataSources[typeName]!.block;
  // Nested blocks arrive as lists, empty when none is written.
  const config: ObjectValue = Object.fromEntries([
    ...Object.keys(attributes).map((n): [string, TfValue] => [n, args[n] ?? null]),
    ...Object.keys(blocks).map((n): [string, TfValue] => [n, args[n] ?? []]),
  ]);
  const r = await provider.readDataSource(typeName, config);
  return { state: r.state ?? null, diagnostics: r.diagnostics };
}

/** Reads and insists on success. */
export async function readOk(provider: ProviderServer, typeName: string, args: ObjectValue = {}): Promise<ObjectValue> {
  const r = await read(provider, typeName, args);
  if (r.diagnostics.length > 0 || r.state === null) throw new Error(`${typeName}: ${JSON.stringify(r.diagnostics)}`);
  return r.state;
}

export const filter = (name: string, values: string[], match_by: string | null = null): ObjectValue => ({ name, values, match_by });

/** Every item of an API list, fetched raw over HTTP (not through the provider's client). */
export async function apiList(server: TestServer, path: string, token?: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const r = await call(server, "GET", `${path}?page=${page}&page_size=500`, token === undefined ? {} : { token });
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
    const body = r.body as { data: Record<string, unknown>[]; pages: number };
    out.push(...body.data);
    if (page >= body.pages) return out;
  }
}

const API_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/**
 * Where a data source value differs from the API's object it shows: every API field must be
 * there (save `omit`), timestamps in RFC 3339, ids that are numbers in the API may be strings;
 * an attribute the API lacks must be null (fields of another kind of a union).
 */
export function differences(api: unknown, tf: TfValue | undefined, omit: readonly string[] = [], path = "$"): string[] {
  if (api === null || api === undefined) return tf === null ? [] : [`${path}: API null, data source ${JSON.stringify(tf)}`];
  if (Array.isArray(api)) {
    if (!Array.isArray(tf) || tf.length !== api.length) return [`${path}: API ${api.length} items, data source ${JSON.stringify(tf)?.slice(0, 80)}`];
    return api.flatMap((a, i) => differences(a, (tf as TfValue[])[i], omit, `${path}[${i}]`));
  }
  if (typeof api === "object") {
    if (tf === null || typeof tf !== "object" || Array.isArray(tf)) return [`${path}: API object, data source ${JSON.stringify(tf)}`];
    const t = tf as ObjectValue;
    const missing = Object.keys(api)
      .filter((k) => !omit.includes(k) && !(k in t))
      .map((k) => `${path}.${k}: missing`);
    const extra = Object.keys(t)
      .filter((k) => !(k in api) && t[k] !== null)
      .map((k) => `${path}.${k}: not in the API's object`);
    const values = Object.entries(api as Record<string, unknown>).flatMap(([k, v]) =>
      omit.includes(k) || !(k in t) ? [] : differences(v, t[k], omit, `${path}.${k}`),
    );
    return [...missing, ...extra, ...values];
  }
  if (typeof api === "string" && API_TIMESTAMP.test(api)) return tf === `${api}Z` ? [] : [`${path}: API ${api}, data source ${String(tf)}`];
  if (typeof api === "number" && typeof tf === "string") return String(api) === tf ? [] : [`${path}: API ${api}, data source "${tf}"`];
  return api === tf ? [] : [`${path}: API ${JSON.stringify(api)}, data source ${JSON.stringify(tf)}`];
}

/** Records the X-Filter header (or its absence) of every API request the server receives. */
export function watchRequests(server: TestServer): { readonly seen: { url: string; filter: string | undefined }[]; stop(): void } {
  const seen: { url: string; filter: string | undefined }[] = [];
  const listener = (req: { url?: string; headers: Record<string, string | string[] | undefined> }) => {
    const f = req.headers["x-filter"];
    seen.push({ url: req.url ?? "", filter: Array.isArray(f) ? f.join(",") : f });
  };
  server.app.server.on("request", listener);
  return { seen, stop: () => void server.app.server.off("request", listener) };
}
