/**
 * Headers upstream sends on every answer, as real clients meet them (issue 47, item 5): linodego's
 * recorded cassettes show `X-Accepted-OAuth-Scopes: *` on operations that need no scope
 * (`GET /profile`, `GET /profile/grants`, `GET /account/maintenance`), and `Cache-Control:
 * no-cache, no-store` with `Vary: Authorization, X-Filter` on every answer, errors included.
 */
import { call, startTestServer, type TestServer } from "./helpers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("X-Accepted-OAuth-Scopes on scope-less operations", () => {
  test.each(["/profile", "/profile/grants", "/account/maintenance"])("GET %s: *", async (path) => {
    const res = await call(server, "GET", path);
    expect(res.status).toBeLessThan(300);
    expect(res.headers["x-accepted-oauth-scopes"]).toBe("*");
    expect(res.headers["x-oauth-scopes"]).toBe("*");
  });
  test("a scoped operation still names its scope", async () => {
    expect((await call(server, "GET", "/profile/sshkeys")).headers["x-accepted-oauth-scopes"]).toBe("account:read_only");
  });
});

describe("Cache-Control and Vary", () => {
  const cases: Array<[string, string]> = [
    ["a read", "/profile"],
    ["a list", "/profile/tokens"],
    ["an unknown route (404)", "/nope"],
  ];
  test.each(cases)("%s", async (_name, path) => {
    const res = await call(server, "GET", path);
    expect(res.headers["cache-control"]).toBe("no-cache, no-store");
    expect(res.headers.vary).toBe("Authorization, X-Filter");
  });
  test("a refused token (401) too", async () => {
    const res = await call(server, "GET", "/profile", { token: "0".repeat(64) });
    expect(res.status).toBe(401);
    expect(res.headers["cache-control"]).toBe("no-cache, no-store");
    expect(res.headers.vary).toBe("Authorization, X-Filter");
  });
  test("the admin namespace is not the API and gets neither", async () => {
    const res = await call(server, "GET", "//__admin/health", { token: null });
    expect(res.headers["cache-control"]).toBeUndefined();
  });
});
