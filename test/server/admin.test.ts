/** The admin namespace (`/__admin`): credentials, clock, users, OAuth, SMS, faults, counters, reset. */
import { request } from "undici";
import { ed25519Key } from "./sshkey-gen";
import { call, errorBody, startTestServer, type Reply, type TestServer } from "./helpers";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

const admin = (method: string, path: string, json?: unknown): Promise<Reply> =>
  call(server, method, `//__admin${path}`, { token: server.adminToken, ...(json === undefined ? {} : { json }) });

describe("credentials", () => {
  test("the ready values: admin URL and a 64-hex token", () => {
    expect(server.adminUrl).toBe(server.url.replace(/\/v4$/, "/__admin"));
    expect(server.adminToken).toMatch(/^[0-9a-f]{64}$/);
  });

  test("every endpoint refuses no token, a wrong token and an API token (401)", async () => {
    const index = (await admin("GET", "")).body as { data: Array<{ method: string; path: string }> };
    expect(index.data.length).toBeGreaterThanOrEqual(18);
    for (const { method, path } of index.data) {
      const url = path.replace(/:[A-Za-z]+/g, "1").replace(/^\//, "//");
      for (const token of [null, "wrong-admin-token", server.token]) {
        const res = await call(server, method, url, { token, json: method === "POST" || method === "PUT" ? {} : undefined });
        expect([method, path, res.status]).toEqual([method, path, 401]);
        expect(res.body).toEqual(errorBody("Invalid admin token"));
      }
    }
  });

  test("the admin token is not an API token", async () => {
    expect((await call(server, "GET", "/profile", { token: server.adminToken })).status).toBe(401);
  });

  test("MGMT_ADMIN_TOKEN (adminToken) fixes it; a bad one is refused", async () => {
    const fixed = await startTestServer({ adminToken: "fixed-admin-token" });
    try {
      expect(fixed.adminToken).toBe("fixed-admin-token");
      expect((await call(fixed, "GET", "//__admin/clock", { token: "fixed-admin-token" })).status).toBe(200);
    } finally {
      await fixed.close();
    }
    await expect(startTestServer({ adminToken: "has spaces" })).rejects.toThrow(/admin token/);
  });
});

describe("clock", () => {
  test("read, set, advance, back to the base clock; the API follows", async () => {
    expect((await admin("GET", "/clock")).body).toEqual({ now: "2025-03-01T12:00:00", offset_seconds: 0 });
    expect((await admin("PUT", "/clock", { now: "2030-06-01T08:00:00Z" })).body).toEqual({ now: "2030-06-01T08:00:00", offset_seconds: expect.any(Number) });
    const created = (await call(server, "POST", "/profile/tokens", { json: { label: "t" } })).body as { created: string };
    expect(created.created).toBe("2030-06-01T08:00:00");
    expect(((await admin("POST", "/clock/advance", { seconds: 3600 })).body as { now: string }).now).toBe("2030-06-01T09:00:00");
    // The base clock (the test's ManualClock) still moves underneath.
    server.clock.advance(1000);
    expect(((await admin("GET", "/clock")).body as { now: string }).now).toBe("2030-06-01T09:00:01");
    expect(((await admin("DELETE", "/clock")).body as { now: string }).now).toBe("2025-03-01T12:00:01");
  });

  test("bad clock bodies are 400 naming the field", async () => {
    expect((await admin("PUT", "/clock", { now: "soon" })).status).toBe(400);
    const res = await admin("POST", "/clock/advance", { seconds: "x" });
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe("seconds");
  });

  test("expiry follows the admin clock", async () => {
    const t = (await call(server, "POST", "/profile/tokens", { json: { label: "short", expiry: "2025-03-01T13:00:00" } })).body as { token: string };
    expect((await call(server, "GET", "/profile", { token: t.token })).status).toBe(200);
    await admin("POST", "/clock/advance", { seconds: 3600 });
    expect((await call(server, "GET", "/profile", { token: t.token })).status).toBe(401);
  });
});

describe("users, grants, tokens", () => {
  const grants = {
    global: {
      account_access: "read_only",
      add_databases: false,
      add_domains: true,
      add_firewalls: false,
      add_images: false,
      add_computes: false,
      add_loadbalancers: false,
      add_longview: false,
      add_nodebalancers: false,
      add_stackscripts: false,
      add_volumes: false,
      add_vpcs: false,
      cancel_account: false,
      child_account_access: false,
      longview_subscription: false,
    },
    database: [],
    domain: [],
    image: [],
    compute: [],
    loadbalancer: [],
    longview: [],
    nodebalancer: [],
    stackscript: [],
    volume: [],
    vpc: [],
  };

  test("a restricted user with grants and a token", async () => {
    const res = await admin("POST", "/users", {
      username: "carol",
      email: "carol@example.com",
      restricted: true,
      grants,
      token: { scopes: "account:read_only" },
    });
    expect(res.status).toBe(200);
    const { user, token } = res.body as { user: { id: number; username: string; restricted: boolean }; token: { token: string; scopes: string } };
    expect(user).toMatchObject({ username: "carol", restricted: true });
    expect(token.scopes).toBe("account:read_only");
    const profile = await call(server, "GET", "/profile", { token: token.token });
    expect(profile.body).toMatchObject({ username: "carol", restricted: true });
    expect((await call(server, "GET", "/profile/grants", { token: token.token })).body).toEqual(grants);
    expect((await admin("GET", `/users/${user.id}`)).body).toMatchObject({ id: user.id, username: "carol", grants });

    const changed = { ...grants, global: { ...grants.global, add_domains: false } };
    expect((await admin("PUT", `/users/${user.id}/grants`, changed)).status).toBe(200);
    expect((await call(server, "GET", "/profile/grants", { token: token.token })).body).toEqual(changed);

    const more = (await admin("POST", `/users/${user.id}/tokens`, { label: "second", scopes: "*" })).body as { token: string; label: string };
    expect(more.label).toBe("second");
    expect((await call(server, "GET", "/profile", { token: more.token })).status).toBe(200);
  });

  test("errors: bad body 400 naming the field, duplicate 409, unknown user 404, grants for an unrestricted user 400", async () => {
    const bad = await admin("POST", "/users", { username: "x", email: "nope" });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toEqual(expect.arrayContaining(["username", "email"]));
    expect((await admin("POST", "/users", { username: "dave", email: "dave@example.com" })).status).toBe(200);
    expect((await admin("POST", "/users", { username: "dave", email: "dave@example.com" })).status).toBe(409);
    expect((await admin("GET", "/users/999")).status).toBe(404);
    expect((await admin("POST", "/users/999/tokens", {})).status).toBe(404);
    expect((await admin("POST", "/users", { username: "erin", email: "erin@example.com", grants })).status).toBe(400);
  });
});

describe("OAuth clients and tokens", () => {
  test("a client, an authorization for a user, its token works and the app is listed", async () => {
    const user = ((await admin("POST", "/users", { username: "frank", email: "frank@example.com" })).body as { user: { id: number } }).user;
    const client = (await admin("POST", "/oauth-clients", { label: "Grafana", website: "https://grafana.example.com" })).body as { id: number; secret: string };
    expect(client.secret).toMatch(/^[0-9a-f]{64}$/);
    const res = await admin("POST", "/oauth-tokens", { user_id: user.id, client_id: client.id, scopes: "account:read_only" });
    expect(res.status).toBe(200);
    const { token, app_id } = res.body as { token: string; app_id: number };
    const apps = (await call(server, "GET", "/profile/apps", { token })).body as { data: Array<{ id: number; label: string; scopes: string }> };
    expect(apps.data).toEqual([expect.objectContaining({ id: app_id, label: "Grafana", scopes: "account:read_only" })]);
    expect((await call(server, "POST", "/profile/tokens", { token, json: { label: "x" } })).status).toBe(401);
    expect((await admin("POST", "/oauth-tokens", { user_id: user.id, client_id: 999 })).status).toBe(404);
    expect((await admin("POST", "/oauth-clients", {})).status).toBe(400);
  });
});

describe("SMS outbox", () => {
  test("the code a phone verification sent can be read and used", async () => {
    expect((await call(server, "POST", "/profile/phone-number", { json: { iso_code: "us", phone_number: "555-010-0199" } })).status).toBe(200);
    const sms = (await admin("GET", "/sms")).body as { data: Array<{ code: string; phone_number: string; user_id: number }> };
    expect(sms.data).toHaveLength(1);
    expect(sms.data[0]!.phone_number).toBe("5550100199");
    expect((await admin("GET", `/sms?user_id=${sms.data[0]!.user_id + 1}`)).body).toEqual({ data: [] });
    expect((await call(server, "POST", "/profile/phone-number/verify", { json: { otp_code: sms.data[0]!.code } })).status).toBe(200);
    expect((await admin("DELETE", "/sms")).status).toBe(200);
    expect((await admin("GET", "/sms")).body).toEqual({ data: [] });
  });
});

describe("faults", () => {
  test("a status fault on a route pattern, listed, counted, removed", async () => {
    const res = await admin("POST", "/faults", { route: "/v4/profile/tokens/:tokenId", status: 503, retry_after: 7 });
    expect(res.status).toBe(200);
    const fault = res.body as { id: number; probability: number };
    expect(fault.probability).toBe(1);
    const hit = await call(server, "GET", "/profile/tokens/1");
    expect(hit.status).toBe(503);
    expect(hit.body).toEqual(errorBody("Fault injected by the admin namespace"));
    expect(hit.headers["retry-after"]).toBe("7");
    expect((await call(server, "GET", "/profile/tokens")).status).toBe(200);
    expect((await admin("GET", "/faults")).body).toEqual({ data: [expect.objectContaining({ id: fault.id, hits: 1, status: 503 })] });
    expect((await admin("DELETE", `/faults/${fault.id}`)).status).toBe(200);
    expect((await admin("DELETE", `/faults/${fault.id}`)).status).toBe(404);
    expect((await call(server, "GET", "/profile/tokens/1")).status).not.toBe(503);
  });

  test("globs and methods, times, probability 0, latency, clear", async () => {
    await admin("POST", "/faults", { route: "/v4/profile/*", method: "POST", status: 500, reason: "boom", times: 1 });
    await admin("POST", "/faults", { route: "/v4/profile", probability: 0, status: 502 });
    await admin("POST", "/faults", { route: "/v4/profile/preferences", latency_ms: 20 });
    expect((await call(server, "GET", "/profile/sshkeys")).status).toBe(200);
    const first = await call(server, "POST", "/profile/sshkeys", { json: { ssh_key: ed25519Key() } });
    expect(first.status).toBe(500);
    expect(first.body).toEqual(errorBody("boom"));
    expect((await call(server, "POST", "/profile/sshkeys", { json: { ssh_key: ed25519Key() } })).status).toBe(200);
    expect((await call(server, "GET", "/profile")).status).toBe(200);
    expect((await call(server, "GET", "/profile/preferences")).status).toBe(200);
    expect(((await admin("GET", "/faults")).body as { data: unknown[] }).data).toHaveLength(3);
    await admin("DELETE", "/faults");
    expect((await admin("GET", "/faults")).body).toEqual({ data: [] });
  });

  test("a dropped connection", async () => {
    await admin("POST", "/faults", { route: "/v4/profile", drop: true });
    await expect(request(`${server.url}/profile`, { headers: { authorization: `Bearer ${server.token}` } })).rejects.toThrow();
    await admin("DELETE", "/faults");
    expect((await call(server, "GET", "/profile")).status).toBe(200);
  });

  test("bad fault bodies are 400", async () => {
    for (const body of [
      {},
      { route: "/v4/x" },
      { route: "/v4/x", status: 200 },
      { route: "/v4/x", status: 500, probability: 2 },
      { route: "/v4/x", drop: true, status: 500 },
    ]) {
      expect((await admin("POST", "/faults", body)).status).toBe(400);
    }
  });
});

describe("counters", () => {
  test("requests per route and status; cleared", async () => {
    await call(server, "GET", "/profile");
    await call(server, "GET", "/profile");
    await call(server, "GET", "/profile", { token: null });
    await call(server, "GET", "/profile/sshkeys/5");
    const counts = (await admin("GET", "/counters")).body as {
      data: Array<{ method: string; route: string; count: number; statuses: Record<string, number> }>;
    };
    expect(counts.data).toEqual(
      expect.arrayContaining([
        { method: "GET", route: "/v4/profile", count: 3, statuses: { "200": 2, "401": 1 } },
        { method: "GET", route: "/v4/profile/sshkeys/:sshKeyId", count: 1, statuses: { "404": 1 } },
      ]),
    );
    // The admin namespace itself is not counted.
    expect(counts.data.every((c) => c.route.startsWith("/v4"))).toBe(true);
    await admin("DELETE", "/counters");
    expect((await admin("GET", "/counters")).body).toEqual({ data: [] });
  });
});

describe("reset", () => {
  test("wipes to a fresh bootstrap with a new token", async () => {
    await call(server, "POST", "/profile/sshkeys", { json: { ssh_key: ed25519Key() } });
    await admin("POST", "/users", { username: "gina", email: "gina@example.com" });
    await admin("POST", "/faults", { route: "/v4/nothing", status: 500 });
    const res = await admin("POST", "/reset");
    expect(res.status).toBe(200);
    const { token } = res.body as { token: string };
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await call(server, "GET", "/profile")).status).toBe(401);
    const profile = await call(server, "GET", "/profile", { token });
    expect(profile.body).toMatchObject({ username: "admin", uid: 1 });
    expect(((await call(server, "GET", "/profile/sshkeys", { token })).body as { results: number }).results).toBe(0);
    expect((await admin("POST", "/users", { username: "gina", email: "gina@example.com" })).status).toBe(200);
    expect((await admin("GET", "/faults")).body).toEqual({ data: [] });
    expect((await admin("POST", "/reset", { fixtures: "yes" })).status).toBe(400);
  });

  test("keeps a fixed bootstrap token and re-applies the start's fixtures", async () => {
    const fixed = await startTestServer({ token: "fixed-bootstrap-token", fixtures: { version: 1, users: [{ username: "hank", email: "hank@example.com" }] } });
    try {
      const reset = (path: string, json: unknown) => call(fixed, "POST", `//__admin${path}`, { token: fixed.adminToken, json });
      expect(((await reset("/reset", {})).body as { token: string }).token).toBe("fixed-bootstrap-token");
      expect((await reset("/users", { username: "hank", email: "hank@example.com" })).status).toBe(409);
      await reset("/reset", { fixtures: false });
      expect((await reset("/users", { username: "hank", email: "hank@example.com" })).status).toBe(200);
    } finally {
      await fixed.close();
    }
  });
});
