/**
 * The OpenAPI 3.1 document of what this server implements, generated from the router's
 * registered routes (method, path, access, `RouteDoc`) and the contract's zod schemas:
 * request bodies in zod's "input" form, answers in its "output" form (JSON Schema 2020-12,
 * which OpenAPI 3.1 uses as is). Served publicly at `GET /v4/openapi.json`; built on the
 * first request, when every route is registered, so routes added by any area appear
 * without further work.
 */
import { z } from "zod";
import { ErrorBody, PAGE_SIZE, paginated } from "../../contract";
import { API_PREFIX, type RouteInfo, type Router } from "./router";

export const OPENAPI_PATH = "/openapi.json";

type Json = Record<string, unknown>;

/** zod → JSON Schema without the `$schema` key (the document declares the dialect once). */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline", cycles: "ref" }) as Json;
  delete out.$schema;
  return out;
}

/** `/profile/tokens/:tokenId` → `/profile/tokens/{tokenId}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

const operationId = (route: RouteInfo): string =>
  route.method.toLowerCase() +
  route.path
    .split("/")
    .filter((s) => s !== "")
    .map((s) =>
      s.startsWith(":") ? `By${s[1]!.toUpperCase()}${s.slice(2)}` : s.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase()),
    )
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join("");

const ERROR_REF = { $ref: "#/components/responses/Error" };

function operation(route: RouteInfo): Json {
  const { doc, access } = route;
  const parameters: Json[] = pathParams(route.path).map((name) => ({
    name,
    in: "path",
    required: true,
    // Ids are positive integers; other path segments (labels) are text.
    schema: /id$/i.test(name) ? { type: "integer", minimum: 1 } : { type: "string" },
  }));
  let success: Json | undefined;
  if (doc.list !== undefined) {
    parameters.push(
      { name: "page", in: "query", required: false, schema: { type: "integer", minimum: 1, default: 1 } },
      {
        name: "page_size",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default },
      },
    );
    const filter = doc.list.filter ?? {};
    const fields = Object.keys(filter);
    if (fields.length > 0) {
      // `x-filterable-fields` is the contract's table (typed clients send numbers for an id);
      // the fields that take a string id as well are named beside it.
      const stringIds = fields.filter((f) => filter[f] === "id");
      const also = stringIds.length === 0 ? "" : ` ${stringIds.join(", ")} takes a number or a string id, as the server writes it.`;
      parameters.push({
        name: "X-Filter",
        in: "header",
        required: false,
        description: `A JSON filter (+and, +or, +eq, +neq, +gt, +gte, +lt, +lte, +contains, +order_by, +order) on: ${fields.join(", ")}.${also}`,
        schema: { type: "string" },
        "x-filterable-fields": Object.fromEntries(fields.map((f) => [f, filter[f] === "id" ? "number" : filter[f]])),
        ...(stringIds.length === 0 ? {} : { "x-filterable-string-ids": stringIds }),
      });
    }
    success = jsonSchema(paginated(doc.list.item), "output");
  } else if (doc.response !== undefined) {
    success = jsonSchema(doc.response, "output");
  }
  if (doc.query !== undefined) {
    const q = jsonSchema(doc.query, "input");
    const props = (q.properties ?? {}) as Record<string, Json>;
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(props)) parameters.push({ name, in: "query", required: required.has(name), schema });
  }

  const status = String(doc.status ?? 200);
  const responses: Json = {
    [status]: {
      description: doc.summary ?? "Success",
      content:
        doc.rawResponse === undefined
          ? { "application/json": { schema: success ?? { type: "object" } } }
          : Object.fromEntries(doc.rawResponse.map((type) => [type, { schema: { type: "string", contentMediaType: type } }])),
    },
    "400": ERROR_REF,
    "404": ERROR_REF,
    "429": ERROR_REF,
    "500": ERROR_REF,
  };
  if (access !== "public") Object.assign(responses, { "401": ERROR_REF, "403": ERROR_REF });
  if (doc.body !== undefined || doc.rawBody !== undefined) responses["413"] = ERROR_REF;

  const op: Json = {
    operationId: operationId(route),
    summary: doc.summary ?? `${route.method} ${route.path}`,
    tags: [route.path.split("/")[1] ?? "root"],
    parameters,
    responses,
    security: access === "public" ? [] : [{ personalAccessToken: [] }, { oauth: access === "token" ? [] : [access] }],
  };
  if (access !== "public" && access !== "token") op["x-accepted-oauth-scopes"] = access;
  // Only an operation that reads a body documents one: the others run with none.
  if (doc.body !== undefined) {
    op.requestBody = { required: doc.bodyOptional !== true, content: { "application/json": { schema: jsonSchema(doc.body, "input") } } };
  } else if (doc.rawBody !== undefined) {
    op.requestBody = {
      required: true,
      content: Object.fromEntries(doc.rawBody.map((type) => [type, { schema: { type: "string", contentMediaType: type } }])),
    };
  }
  return op;
}

export interface OpenApiInfo {
  title?: string;
  version?: string;
}

export function openApiDocument(routes: readonly RouteInfo[], info: OpenApiInfo = {}): Json {
  const paths: Record<string, Json> = {};
  const scopes = new Set<string>(["*"]);
  for (const route of routes) {
    const key = openApiPath(route.path);
    (paths[key] ??= {})[route.method.toLowerCase()] = operation(route);
    if (route.access !== "public" && route.access !== "token") {
      scopes.add(route.access);
      // read_write implies read_only on the same area.
      scopes.add(route.access.replace(/:read_only$/, ":read_write"));
    }
  }
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: info.title ?? "Management API (mgmt serve)",
      version: info.version ?? "4",
      description: "What the local `mgmt serve` implements. Generated from its routes and the contract's zod schemas.",
    },
    // Every path is served under both prefixes, as upstream does.
    servers: [{ url: API_PREFIX }, { url: `${API_PREFIX}beta`, description: "The same API under upstream's beta prefix" }],
    paths,
    components: {
      schemas: { ErrorBody: jsonSchema(ErrorBody, "output") },
      responses: {
        Error: {
          description: "An error: one item per problem; `field` names the dotted field (or a header such as X-Filter).",
          content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
        },
      },
      securitySchemes: {
        personalAccessToken: { type: "http", scheme: "bearer", description: "A personal access token (scopes as the token holds)." },
        oauth: {
          type: "oauth2",
          description: "An OAuth token issued to an OAuth client (the token exchange is simulated by the admin namespace).",
          flows: {
            authorizationCode: {
              authorizationUrl: "https://login.example.com/oauth/authorize",
              tokenUrl: "https://login.example.com/oauth/token",
              scopes: Object.fromEntries([...scopes].sort().map((s) => [s, s === "*" ? "Every area, read and write" : s])),
            },
          },
        },
      },
    },
  };
}

const AnyObject = z.record(z.string(), z.unknown());

/** Registers `GET /v4/openapi.json` (public). Call after the other routes, before `closeMethods`. */
export function openApiRoutes(r: Router): void {
  // The bytes, once: parsing, serializing and encoding 113 KB on every request let a client that asks it in a loop hold the event loop.
  let cached: Buffer | undefined;
  r.get(OPENAPI_PATH, "public", { summary: "This OpenAPI document", response: AnyObject }, async () => {
    cached ??= Buffer.from(JSON.stringify(AnyObject.parse(openApiDocument(r.routes))));
    return { status: 200, json: cached };
  });
}
