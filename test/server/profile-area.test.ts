/** PUT /profile, grants, preferences, authorized apps, trusted devices (30 days), logins (90 days). */
import { AuthorizedApp, ErrorBody, GrantsResponse, Login, Profile, TrustedDevice, emptyGrants, paginated } from "../../src/contract";
import { call, startTestServer, type TestServer } from "./helpers";
import { at, newActor, oauthApp } from "./actors";
import { ed25519Key } from "./sshkey-gen";

const DAY = 86_400_000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
const field = (body: unknown) => ErrorBody.parse(body).errors[0]!.field;

describe("PUT /profile", () => {
  test("updates the writable fields and ignores read-only ones", async () => {
    const { token } = await newActor(server);
    const key = ed25519Key();
    const res = await call(server, "PUT", "/profile", {
      token,
      json: {
        email: "new@example.com",
        timezone: "America/New_York",
        email_notifications: false,
        lish_auth_method: "keys_only",
        authorized_keys: [key],
        uid: 999,
        username: "someone-else",
        restricted: false,
        two_factor_auth: false,
        ip_whitelist_enabled: false,
      },
    });
    expect(res.status).toBe(200);
    const p = Profile.parse(res.body);
    expect(p).toMatchObject({ email: "new@example.com", timezone: "America/New_York", email_notifications: false, lish_auth_method: "keys_only" });
    expect(p.authorized_keys).toEqual([key]);
    expect(p.username).not.toBe("someone-else");
    expect(Profile.parse((await call(server, "GET", "/profile", { token })).body)).toEqual(p);
    expect(Profile.parse((await call(server, "PUT", "/profile", { token, json: { authorized_keys: null } })).body).authorized_keys).toBeNull();
    expect((await call(server, "PUT", "/profile", { token, json: {} })).status).toBe(200);
  });

  test.each([
    [{ email: "not-an-email" }, "email"],
    [{ email: `${"a".repeat(120)}@example.com` }, "email"],
    [{ timezone: "Mars/Olympus" }, "timezone"],
    [{ lish_auth_method: "telnet" }, "lish_auth_method"],
    [{ email_notifications: "yes" }, "email_notifications"],
    [{ authorized_keys: ["not a key"] }, "authorized_keys.0"],
    [{ authorized_keys: "ssh-ed25519 AAAA" }, "authorized_keys"],
    [{ restricted: true }, "restricted"],
    [{ two_factor_auth: true }, "two_factor_auth"],
    [{ ip_whitelist_enabled: true }, "ip_whitelist_enabled"],
  ])("%j → 400 naming %s", async (json, name) => {
    const { token } = await newActor(server);
    const res = await call(server, "PUT", "/profile", { token, json });
    expect([res.status, field(res.body)]).toEqual([400, name]);
  });

  test("a restricted user cannot lift the restriction", async () => {
    const { token } = await newActor(server, { restricted: true });
    const res = await call(server, "PUT", "/profile", { token, json: { restricted: false } });
    expect([res.status, field(res.body)]).toEqual([400, "restricted"]);
    expect(Profile.parse((await call(server, "GET", "/profile", { token })).body).restricted).toBe(true);
  });

  test("a proxy user's email cannot change (sending it back unchanged is fine)", async () => {
    const { user, token } = await newActor(server, { userType: "proxy" });
    const res = await call(server, "PUT", "/profile", { token, json: { email: "other@example.com" } });
    expect([res.status, field(res.body)]).toEqual([403, "email"]);
    expect((await call(server, "PUT", "/profile", { token, json: { email: user.email, timezone: "Asia/Tokyo" } })).status).toBe(200);
  });
});

describe("GET /profile: user_type (issue 47, item 6)", () => {
  // linodego's Profile and linode_api4-python's Profile read `user_type`; upstream's recorded answers have it.
  test("default for the bootstrap user, proxy for a proxy user", async () => {
    expect(Profile.parse((await call(server, "GET", "/profile")).body).user_type).toBe("default");
    const { token } = await newActor(server, { userType: "proxy" });
    expect((await call(server, "GET", "/profile", { token })).body).toMatchObject({ user_type: "proxy" });
  });
});

describe("grants", () => {
  test("an unrestricted user: 204, no body", async () => {
    const res = await call(server, "GET", "/profile/grants");
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
  });

  test("a restricted user: their grants, nothing by default", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    const res = await call(server, "GET", "/profile/grants", { token });
    expect(res.status).toBe(200);
    expect(GrantsResponse.parse(res.body)).toEqual(emptyGrants());
    const grants = emptyGrants();
    grants.global.account_access = "read_only";
    grants.global.add_computes = true;
    grants.compute.push({ id: 7, label: "web", permissions: "read_write" });
    await server.domain.users.setGrants(user.id, grants);
    expect(GrantsResponse.parse((await call(server, "GET", "/profile/grants", { token })).body)).toEqual(grants);
  });
});

describe("preferences", () => {
  test("replace, not merge; per OAuth client", async () => {
    const { user, token } = await newActor(server);
    expect((await call(server, "GET", "/profile/preferences", { token })).body).toEqual({});
    const put = await call(server, "PUT", "/profile/preferences", { token, json: { theme: "dark", size: { font: 12 } } });
    expect([put.status, put.body]).toEqual([200, { theme: "dark", size: { font: 12 } }]);
    await call(server, "PUT", "/profile/preferences", { token, json: { lang: "fr" } });
    expect((await call(server, "GET", "/profile/preferences", { token })).body).toEqual({ lang: "fr" });

    const app = await oauthApp(server, user.id);
    expect((await call(server, "GET", "/profile/preferences", { token: app.token })).body).toEqual({});
    await call(server, "PUT", "/profile/preferences", { token: app.token, json: { app: true } });
    expect((await call(server, "GET", "/profile/preferences", { token })).body).toEqual({ lang: "fr" });
    expect((await call(server, "GET", "/profile/preferences", { token: app.token })).body).toEqual({ app: true });
  });

  test("the body is a JSON object of at most 65,535 characters", async () => {
    const { token } = await newActor(server);
    const pad = (n: number) => ({ k: "x".repeat(n - '{"k":""}'.length) });
    expect((await call(server, "PUT", "/profile/preferences", { token, json: pad(65_535) })).status).toBe(200);
    const big = await call(server, "PUT", "/profile/preferences", { token, json: pad(65_536) });
    expect(big.status).toBe(400);
    expect(ErrorBody.parse(big.body).errors[0]!.reason).toMatch(/65535/);
    for (const json of [[1, 2], "text", 5, null]) {
      expect((await call(server, "PUT", "/profile/preferences", { token, json })).status).toBe(400);
    }
  });
});

describe("authorized apps", () => {
  const AppPage = paginated(AuthorizedApp);
  test("listed, viewed, revoked (then gone); expired apps are not listed", async () => {
    const { user, token } = await newActor(server);
    const a = await oauthApp(server, user.id, "account:read_only");
    const b = await oauthApp(server, user.id, "*", at(server, DAY));
    const list = AppPage.parse((await call(server, "GET", "/profile/apps", { token })).body);
    expect(list).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(list.data[0]).toEqual({
      id: a.app.id,
      label: "an app",
      scopes: "account:read_only",
      website: "https://app.example.com",
      thumbnail_url: null,
      created: a.app.created,
      expiry: null,
    });
    expect(AuthorizedApp.parse((await call(server, "GET", `/profile/apps/${b.app.id}`, { token })).body).expiry).toBe(b.app.expiry);
    expect((await call(server, "DELETE", `/profile/apps/${a.app.id}`, { token })).body).toEqual({});
    expect((await call(server, "GET", `/profile/apps/${a.app.id}`, { token })).status).toBe(404);
    expect((await call(server, "DELETE", `/profile/apps/${a.app.id}`, { token })).status).toBe(404);
    server.clock.advance(DAY);
    expect(AppPage.parse((await call(server, "GET", "/profile/apps", { token })).body).results).toBe(0);
    expect((await call(server, "GET", `/profile/apps/${b.app.id}`, { token })).status).toBe(404);
  });
});

describe("trusted devices", () => {
  const DevicePage = paginated(TrustedDevice);
  test("a session lasts 30 days; revoke ends it", async () => {
    const { user, token } = await newActor(server);
    const d1 = await server.domain.devices.create({ userId: user.id, userAgent: "Mozilla/5.0", remoteAddr: "203.0.113.1" });
    const d2 = await server.domain.devices.create({ userId: user.id, userAgent: "curl/8", remoteAddr: "203.0.113.2" });
    const view = TrustedDevice.parse((await call(server, "GET", `/profile/devices/${d1.id}`, { token })).body);
    expect(view).toEqual({
      id: d1.id,
      created: at(server, 0),
      expiry: at(server, 30 * DAY),
      last_authenticated: at(server, 0),
      last_remote_addr: "203.0.113.1",
      user_agent: "Mozilla/5.0",
    });
    expect((await call(server, "DELETE", `/profile/devices/${d2.id}`, { token })).body).toEqual({});
    expect((await call(server, "GET", `/profile/devices/${d2.id}`, { token })).status).toBe(404);
    expect(DevicePage.parse((await call(server, "GET", "/profile/devices", { token })).body).results).toBe(1);
    server.clock.advance(30 * DAY - 1000);
    expect((await call(server, "GET", `/profile/devices/${d1.id}`, { token })).status).toBe(200);
    server.clock.advance(1000);
    expect((await call(server, "GET", `/profile/devices/${d1.id}`, { token })).status).toBe(404);
    expect(DevicePage.parse((await call(server, "GET", "/profile/devices", { token })).body)).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  });
});

describe("logins", () => {
  const LoginPage = paginated(Login);
  test("successful logins of this user in the last 90 days", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    const other = await newActor(server);
    const old = await server.domain.logins.record({ userId: user.id, ip: "192.0.2.1", datetime: at(server, -90 * DAY - 1000) });
    const edge = await server.domain.logins.record({ userId: user.id, ip: "192.0.2.2", datetime: at(server, -90 * DAY) });
    const recent = await server.domain.logins.record({ userId: user.id, ip: "2001:db8::1" });
    await server.domain.logins.record({ userId: user.id, ip: "192.0.2.3", status: "failed" });
    const others = await server.domain.logins.record({ userId: other.user.id, ip: "192.0.2.4" });
    const list = LoginPage.parse((await call(server, "GET", "/profile/logins", { token })).body);
    expect(list.data.map((l) => l.id)).toEqual([edge.id, recent.id]);
    expect(list.data[1]).toEqual({
      id: recent.id,
      datetime: at(server, 0),
      ip: "2001:db8::1",
      restricted: true,
      status: "successful",
      username: user.username,
    });
    expect((await call(server, "GET", `/profile/logins/${old.id}`, { token })).status).toBe(404);
    expect((await call(server, "GET", `/profile/logins/${others.id}`, { token })).status).toBe(404);
    server.clock.advance(1000);
    expect((await call(server, "GET", `/profile/logins/${edge.id}`, { token })).status).toBe(404);
    expect(Login.parse((await call(server, "GET", `/profile/logins/${recent.id}`, { token })).body).id).toBe(recent.id);
  });
});

describe("no input produces a 5xx", () => {
  const junk: unknown[] = [
    null,
    0,
    "s",
    [],
    [null],
    {},
    { a: { b: [1, { c: null }] } },
    { label: null, scopes: null, expiry: null },
    { security_questions: [null, 1, "x"] },
    { tfa_code: null },
    { otp_code: [] },
    { iso_code: {}, phone_number: [] },
    { authorized_keys: [null] },
    { email: null, timezone: null },
  ];
  test("every body-taking operation answers 4xx or 200 to junk", async () => {
    const { token } = await newActor(server);
    const ops: Array<[string, string]> = [
      ["PUT", "/profile"],
      ["POST", "/profile/phone-number"],
      ["POST", "/profile/phone-number/verify"],
      ["PUT", "/profile/preferences"],
      ["POST", "/profile/security-questions"],
      ["POST", "/profile/tfa-enable-confirm"],
      ["POST", "/profile/tokens"],
      ["PUT", "/profile/tokens/1"],
      ["POST", "/profile/sshkeys"],
    ];
    for (const [method, path] of ops) {
      for (const json of junk) {
        const res = await call(server, method, path, { token, json });
        expect([method, path, JSON.stringify(json), res.status < 500]).toEqual([method, path, JSON.stringify(json), true]);
      }
    }
    expect(server.logs.join("")).not.toMatch(/"status":5\d\d/);
  });
});
