/** @tier unit */
/** `GET /v4/openapi.json`: public, structurally valid, and listing every registered route. */
import Ajv2020 from "ajv/dist/2020";
import { z } from "zod";
import { SCOPE_AREAS } from "../../src/contract/scopes";
import { openApiDocument } from "../../src/server/http/openapi";
import { call, startTestServer, type TestServer } from "./helpers";

type Doc = {
  openapi: string;
  info: { title: string };
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        responses: Record<string, unknown>;
        security: unknown[];
        parameters: Array<{ name: string; in: string; description?: string; readonly [extension: `x-${string}`]: unknown }>;
        requestBody?: unknown;
      }
    >
  >;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; flows?: { authorizationCode: { scopes: Record<string, string> } } }>;
  };
};

let server: TestServer;
let doc: Doc;
beforeAll(async () => {
  server = await startTestServer();
  const res = await call(server, "GET", "/openapi.json", { token: null });
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/application\/json/);
  doc = res.body as Doc;
});
afterAll(() => server.close());

/** `/v4/...` paths Fastify serves, from its route tree. */
function servedPaths(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split("\n")) {
    const m = /^(.*?)(?:[├└]── )(\S+)(?: \(.*\))?$/.exec(line);
    if (m === null) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (/\(/.test(line)) out.push(stack.join(""));
  }
  return [...new Set(out.filter((p) => p.startsWith("/v4/")).map((p) => p.replace(/\/$/, "")))];
}

test("an OpenAPI 3.1 document with components and security schemes", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.info.title).toMatch(/Management API/);
  expect(doc.components.securitySchemes.personalAccessToken).toMatchObject({ type: "http" });
  expect(doc.components.securitySchemes.oauth!.flows!.authorizationCode.scopes).toHaveProperty(["account:read_only"]);
  const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
  const ids = ops.map((o) => o.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const op of ops) {
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["400", "404", "500"]));
    expect(Array.isArray(op.security)).toBe(true);
  }
});

test("every $ref resolves and every schema compiles as JSON Schema 2020-12", () => {
  const text = JSON.stringify(doc);
  for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
    const target = ref!.split("/").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
    expect([ref, target === undefined]).toEqual([ref, false]);
  }
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const schemas: unknown[] = [];
  const walk = (node: unknown, key?: string) => {
    if (key === "schema" && typeof node === "object" && node !== null && !("$ref" in node)) schemas.push(node);
    if (typeof node === "object" && node !== null) for (const [k, v] of Object.entries(node)) walk(v, k);
  };
  walk(doc.paths);
  expect(schemas.length).toBeGreaterThan(50);
  for (const s of schemas) expect(() => ajv.compile(s as object)).not.toThrow();
});

test("every registered route is in the document, with exactly its methods", async () => {
  const paths = servedPaths(server.app.printRoutes({ commonPrefix: false }));
  expect(paths.length).toBeGreaterThan(10);
  for (const path of paths) {
    const key = path.slice(3).replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const concrete = path.replace(/:[A-Za-z0-9_]+/g, "1").slice(3);
    const served: string[] = [];
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const res = await call(server, method, concrete, { token: null });
      if (res.status !== 405) served.push(method.toLowerCase());
    }
    expect([key, Object.keys(doc.paths[key] ?? {}).sort()]).toEqual([key, served.sort()]);
  }
});

test("the event list's X-Filter names entity.id as taking string ids too", () => {
  const xFilter = doc.paths["/account/events"]!.get!.parameters.find((p) => p.name === "X-Filter")!;
  expect(xFilter["x-filterable-fields"]).toMatchObject({ "entity.id": "number" });
  expect(xFilter["x-filterable-string-ids"]).toEqual(["entity.id"]);
  expect(xFilter.description).toMatch(/entity\.id takes a number or a string id/);
  const tokens = doc.paths["/profile/tokens"]!.get!.parameters.find((p) => p.name === "X-Filter")!;
  expect(tokens).not.toHaveProperty("x-filterable-string-ids");
});

test("operations carry parameters, bodies, answers and security", () => {
  const list = doc.paths["/profile/tokens"]!.get!;
  expect(list.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(["query:page", "query:page_size", "header:X-Filter"]);
  expect(list.security).toEqual([{ personalAccessToken: [] }, { oauth: ["account:read_only"] }]);
  const create = doc.paths["/profile/tokens"]!.post!;
  const body = (create.requestBody as { content: { "application/json": { schema: { properties: Record<string, unknown>; required: string[] } } } }).content[
    "application/json"
  ].schema;
  expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["label", "scopes", "expiry"]));
  expect(body.required).toEqual(["label"]);
  expect(create.responses).toHaveProperty(["200", "content", "application/json", "schema", "properties", "token"]);
  expect(create.responses["401"]).toEqual({ $ref: "#/components/responses/Error" });
  expect(doc.paths["/profile/tokens/{tokenId}"]!.get!.parameters).toEqual([
    { name: "tokenId", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
  ]);
  const self = doc.paths["/openapi.json"]!.get!;
  expect(self.security).toEqual([]);
  expect(self.responses["401"]).toBeUndefined();
});

test("served without credentials, even with a bad token", async () => {
  expect((await call(server, "GET", "/openapi.json", { token: "garbage" })).status).toBe(200);
});

describe("the scope areas", () => {
  it("every operation's accepted scope names an area of the contract's SCOPE_AREAS, and every area is required somewhere", () => {
    const accepted = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).flatMap((op) => {
        const scope = (op as { "x-accepted-oauth-scopes"?: string })["x-accepted-oauth-scopes"];
        return scope === undefined ? [] : [scope.split(":")[0]!];
      }),
    );
    expect([...new Set(accepted)].sort()).toEqual([...SCOPE_AREAS].sort());
  });
});

type Schema = Record<string, unknown>;

/** A schema that says nothing of its fields: `{}`, a bare object, or a record of anything. */
function generic(schema: Schema): boolean {
  const shaped = ["properties", "items", "prefixItems", "anyOf", "oneOf", "allOf", "enum", "const", "$ref"].some((k) => k in schema);
  if (shaped) return false;
  if (schema.type === undefined || schema.type === "object") {
    const extra = schema.additionalProperties as Schema | boolean | undefined;
    return extra === undefined || typeof extra === "boolean" || generic(extra);
  }
  return false;
}

/** Each operation's JSON request body schema, by `METHOD path`. */
const requestBodies = (paths: Doc["paths"]): Array<[string, Schema]> =>
  Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => {
      const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
      const json = content?.["application/json"];
      return json === undefined ? [] : [[`${method.toUpperCase()} ${path}`, json.schema] as [string, Schema]];
    }),
  );

/** Bodies and answers the API defines as any JSON object: free-form is their contract schema. */
const FREE_FORM = new Set(["PUT /profile/preferences", "GET /profile/preferences", "GET /openapi.json"]);

describe("request bodies", () => {
  it("every operation with a JSON body shows its contract schema, never a generic object", () => {
    const bodies = requestBodies(doc.paths);
    expect(bodies.length).toBeGreaterThanOrEqual(18);
    expect(bodies.filter(([op, schema]) => generic(schema) && !FREE_FORM.has(op)).map(([op]) => op)).toEqual([]);
    expect(bodies.find(([name]) => name === "PUT /profile/preferences")?.[1].type).toBe("object");
    const names = Object.fromEntries(bodies.map(([op, schema]) => [op, Object.keys((schema.properties ?? {}) as Schema).sort()]));
    expect(names["POST /account/oauth-clients"]).toEqual(["label", "public", "redirect_uri"]);
    expect(names["PUT /account/oauth-clients/{clientId}"]).toEqual(expect.arrayContaining(["label", "redirect_uri"]));
    expect(names["POST /account/entity-transfers"]).toEqual(["entities"]);
  });

  it("the check refuses a generic body schema and accepts a shaped one", () => {
    const built = openApiDocument([
      { method: "POST", path: "/anything", access: "token", doc: { body: z.record(z.string(), z.unknown()) } },
      { method: "PUT", path: "/shaped", access: "token", doc: { body: z.object({ label: z.string() }) } },
    ]) as { paths: Doc["paths"] };
    expect(requestBodies(built.paths).map(([op, schema]) => [op, generic(schema)])).toEqual([
      ["POST /anything", true],
      ["PUT /shaped", false],
    ]);
  });
});

describe("answers", () => {
  it("every JSON success answer shows its contract schema; bytes show their media types", () => {
    const answers = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const success = Object.entries(op.responses).find(([status]) => status.startsWith("2"))![1] as { content: Record<string, { schema: Schema }> };
        return [`${method.toUpperCase()} ${path}`, success.content] as const;
      }),
    );
    const generics = answers.filter(
      ([op, content]) => content["application/json"] !== undefined && generic(content["application/json"].schema) && !FREE_FORM.has(op),
    );
    expect(generics.map(([op]) => op)).toEqual([]);
    const thumbnail = answers.find(([op]) => op === "GET /account/oauth-clients/{clientId}/thumbnail")![1];
    expect(thumbnail["image/png"]).toEqual({ schema: { type: "string", contentMediaType: "image/png" } });
  });
});
