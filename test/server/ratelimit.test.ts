/** @tier unit */
/** Optional rate limiting: headers, 429 with Retry-After, and the window moving with the clock. */
import { newActor } from "./actors";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { RATE_LIMITED_REASON } from "../../src/server/http/ratelimit";

const epoch = (iso: string) => String(Date.parse(iso) / 1000);

describe("with --rate-limit 3", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ rateLimit: 3 });
  });
  afterEach(() => server.close());

  test("headers count down; the 4th request in the minute is 429 with Retry-After", async () => {
    for (const remaining of ["2", "1", "0"]) {
      const res = await call(server, "GET", "/profile");
      expect(res.status).toBe(200);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      expect(res.headers["x-ratelimit-remaining"]).toBe(remaining);
      expect(res.headers["x-ratelimit-reset"]).toBe(epoch("2025-03-01T12:01:00Z"));
    }
    server.clock.advance(15_000);
    const refused = await call(server, "GET", "/profile/sshkeys");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(errorBody(RATE_LIMITED_REASON));
    expect(refused.headers["retry-after"]).toBe("45");
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
    expect(refused.headers["x-ratelimit-reset"]).toBe(epoch("2025-03-01T12:01:00Z"));
  });

  test("the next window (by the server clock) starts afresh", async () => {
    for (let i = 0; i < 3; i++) await call(server, "GET", "/profile");
    expect((await call(server, "GET", "/profile")).status).toBe(429);
    server.clock.advance(60_000);
    const res = await call(server, "GET", "/profile");
    expect(res.status).toBe(200);
    expect(res.headers["x-ratelimit-remaining"]).toBe("2");
    expect(res.headers["x-ratelimit-reset"]).toBe(epoch("2025-03-01T12:02:00Z"));
  });

  test("each token has its own window; error answers count and carry the headers", async () => {
    const other = await newActor(server);
    for (let i = 0; i < 3; i++) await call(server, "GET", "/profile");
    expect((await call(server, "GET", "/profile")).status).toBe(429);
    const res = await call(server, "GET", "/profile", { token: other.token });
    expect(res.status).toBe(200);
    expect(res.headers["x-ratelimit-remaining"]).toBe("2");
    const bad = await call(server, "GET", "/profile", { token: "not-a-real-token" });
    expect(bad.status).toBe(401);
    expect(bad.headers["x-ratelimit-remaining"]).toBe("2");
  });

  test("the admin namespace is never limited", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await call(server, "GET", "//__admin/clock", { token: server.adminToken });
      expect(res.status).toBe(200);
      expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    }
  });

  test("reset clears the windows", async () => {
    for (let i = 0; i < 4; i++) await call(server, "GET", "/profile");
    const { token } = (await call(server, "POST", "//__admin/reset", { token: server.adminToken, json: {} })).body as { token: string };
    expect((await call(server, "GET", "/profile", { token })).headers["x-ratelimit-remaining"]).toBe("2");
  });
});

test("off by default: no rate-limit headers", async () => {
  const server = await startTestServer();
  try {
    for (let i = 0; i < 5; i++) {
      const res = await call(server, "GET", "/profile");
      expect(res.status).toBe(200);
      expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
    }
  } finally {
    await server.close();
  }
});
