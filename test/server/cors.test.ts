/**
 * CORS as upstream answers it: preflights on any /v4 (and /v4beta) path answered 204 without
 * credentials, and upstream's Access-Control-* headers on every answer, errors included; with
 * `corsOrigins` (`mgmt serve --cors-origin`), only the listed origins are allowed to read.
 */
import { CORS_HEADERS } from "../../src/server/http/cors";
import { call, expectJsonError, startTestServer, type TestServer } from "./helpers";
import { exchange } from "./raw-socket";
import { ed25519Key } from "./sshkey-gen";

const APP = "https://app.example";
const preflight = (server: TestServer, path: string, origin = APP) =>
  call(server, "OPTIONS", path, {
    token: null,
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, x-filter" },
  });

describe("any origin (the default, as upstream)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test("a preflight is answered 204, without a token, allowing Authorization, Content-Type and X-Filter", async () => {
    for (const path of ["/profile/sshkeys", "//v4beta/profile/sshkeys", "/profile/sshkeys/1", "/account/events", "/nothing-here"]) {
      const res = await preflight(server, path);
      expect([path, res.status, res.text]).toEqual([path, 204, ""]);
      expect(res.headers).toMatchObject({ "access-control-allow-origin": "*", ...CORS_HEADERS });
      const allowedHeaders = String(res.headers["access-control-allow-headers"]).toLowerCase().split(", ");
      expect(allowedHeaders).toEqual(expect.arrayContaining(["authorization", "content-type", "x-filter"]));
      expect(String(res.headers["access-control-allow-methods"]).split(", ")).toEqual(expect.arrayContaining(["GET", "POST", "PUT", "DELETE"]));
    }
  });

  test("a preflight writes nothing and is not a request for the operation", async () => {
    const before = await call(server, "GET", "/profile/sshkeys");
    expect((await preflight(server, "/profile/sshkeys")).status).toBe(204);
    expect((await call(server, "GET", "/profile/sshkeys")).body).toEqual(before.body);
  });

  test("answers carry the headers: successes, 401, 404, 405, and the scopes are exposed", async () => {
    const ok = await call(server, "POST", "/profile/sshkeys", { json: { label: "web", ssh_key: ed25519Key() }, headers: { origin: APP } });
    expect(ok.status).toBe(200);
    expect(ok.headers).toMatchObject({ "access-control-allow-origin": "*", ...CORS_HEADERS });
    expect(String(ok.headers["access-control-expose-headers"])).toMatch(/X-OAuth-Scopes, X-Accepted-OAuth-Scopes/);
    for (const [res, status] of [
      [await call(server, "GET", "/profile", { token: null, headers: { origin: APP } }), 401],
      [await call(server, "GET", "/nothing-here", { headers: { origin: APP } }), 404],
      [await call(server, "PATCH", "/profile", { headers: { origin: APP } }), 405],
    ] as const) {
      expectJsonError(res, status);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
    }
  });

  test("the admin namespace is not opened to browsers; a preflight with a malformed Host is still 400", async () => {
    const admin = await call(server, "OPTIONS", "//__admin", { token: null, headers: { origin: APP } });
    expect(admin.status).toBe(404);
    expect(admin.headers["access-control-allow-origin"]).toBeUndefined();
    const { responses } = await exchange(server.port, [`OPTIONS /v4/profile HTTP/1.1\r\nHost: u@h\r\nOrigin: ${APP}\r\n\r\n`]);
    expect(responses.map((r) => r.status)).toEqual([400]);
  });
});

describe("restricted origins", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ corsOrigins: [APP, "http://localhost:3000"] });
  });
  afterAll(() => server.close());

  test("a listed origin is allowed by name, with Vary: Origin", async () => {
    for (const origin of [APP, "http://localhost:3000"]) {
      const pre = await preflight(server, "/profile", origin);
      expect(pre.status).toBe(204);
      expect(pre.headers).toMatchObject({ "access-control-allow-origin": origin, vary: "Origin" });
      const res = await call(server, "GET", "/profile", { headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({ "access-control-allow-origin": origin, vary: "Authorization, X-Filter, Origin" });
    }
  });

  test("another origin, or none, is not allowed to read (the API still answers callers that are not browsers)", async () => {
    for (const origin of ["https://evil.example", "https://app.example:8443", undefined]) {
      const pre = await preflight(server, "/profile", origin ?? "");
      expect(pre.status).toBe(204);
      expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
      const res = await call(server, "GET", "/profile", { headers: origin === undefined ? {} : { origin } });
      expect(res.status).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      expect(res.headers.vary).toBe("Authorization, X-Filter, Origin");
    }
  });
});
