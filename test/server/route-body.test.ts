/** @tier unit */
/** A route's body: declared once in its `RouteDoc`, parsed by that schema when the handler asks for it. */
import Fastify from "fastify";
import { request } from "undici";
import { z } from "zod";
import { answer } from "../../src/server/http/present";
import { Router } from "../../src/server/http/router";
import { call, expectJsonError, startTestServer, type TestServer } from "./helpers";

describe("body() in a bare router", () => {
  const app = Fastify();
  const router = new Router(app, async () => {
    throw new Error("no route here needs a caller");
  });
  const Echo = z.object({ label: z.string().default("none") });
  let parses = 0;
  const Counted = Echo.transform((v) => {
    parses += 1;
    return v;
  });
  router.post("/echo", "public", { body: Counted, bodyOptional: true }, async ({ body }) => answer(Echo, { label: `${body().label}/${body().label}` }));
  router.post("/undeclared", "public", {}, async ({ body }) => answer(Echo, body()));
  let base = "";
  beforeAll(async () => {
    base = `${await app.listen({ port: 0, host: "127.0.0.1" })}/v4`;
  });
  afterAll(() => app.close());

  const post = async (path: string, json?: unknown) => {
    const res = await request(base + path, {
      method: "POST",
      ...(json === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(json) }),
    });
    return [res.statusCode, (await res.body.json()) as Record<string, unknown>] as const;
  };

  it("parses with the declared schema, once however often it is asked for", async () => {
    expect(await post("/echo", { label: "a" })).toEqual([200, { label: "a/a" }]);
    expect(parses).toBe(1);
  });

  it("runs an optional body left out as an empty object", async () => {
    expect(await post("/echo")).toEqual([200, { label: "none/none" }]);
  });

  it("refuses to read a body the route did not declare", async () => {
    const [status, body] = await post("/undeclared", { label: "a" });
    expect(status).toBe(500);
    expect(body.message).toMatch(/POST \/v4\/undeclared declares no body schema/);
  });
});

describe("body() on the API", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("answers 400 naming the field the declared schema refuses", async () => {
    const res = await call(server, "POST", "/profile/tokens", { json: { label: 5 } });
    expect(expectJsonError(res, 400).errors[0]?.field).toBe("label");
  });

  it("checks the path before the body: a path that names nothing is 404 whatever the body", async () => {
    const res = await call(server, "PUT", "/profile/tokens/not-an-id", { json: { label: 5 } });
    expectJsonError(res, 404);
  });
});
