/** Personal access tokens and OAuth tokens: creation rules, display, expiry, revocation. */
import { ErrorBody, PersonalAccessToken, paginated } from "../../src/contract";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { at, bootstrapUserId, mintFor, newActor, oauthApp } from "./actors";

const INVALID_TOKEN = errorBody("Invalid Token");
const TokenPage = paginated(PersonalAccessToken);
const HOUR = 3_600_000;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const create = (json: unknown, token?: string) => call(server, "POST", "/profile/tokens", { json, token });

describe("create", () => {
  test("answers the full token once, then only its first 16 characters", async () => {
    const res = await create({ label: "ci", scopes: "account:read_only" });
    expect(res.status).toBe(200);
    const created = PersonalAccessToken.parse(res.body);
    expect(created).toMatchObject({ label: "ci", scopes: "account:read_only", expiry: null, created: "2025-03-01T12:00:00" });
    expect(created.token).toMatch(/^[0-9a-f]{64}$/);

    const read = PersonalAccessToken.parse((await call(server, "GET", `/profile/tokens/${created.id}`)).body);
    expect(read).toEqual({ ...created, token: created.token.slice(0, 16) });
    const list = TokenPage.parse((await call(server, "GET", "/profile/tokens")).body);
    expect(list.data.find((t) => t.id === created.id)).toEqual(read);
    expect(JSON.stringify(list)).not.toContain(created.token);

    // The new token works, with its own scopes.
    expect((await call(server, "GET", "/profile/sshkeys", { token: created.token })).status).toBe(200);
    expect((await call(server, "POST", "/profile/tokens", { token: created.token, json: { label: "x" } })).status).toBe(401);
  });

  test("omitted scopes: the acting token's", async () => {
    const token = await mintFor(server, await bootstrapUserId(server), "account:read_write events:read_only");
    const created = PersonalAccessToken.parse((await create({ label: "child" }, token)).body);
    expect(created.scopes).toBe("account:read_write events:read_only");
    const all = PersonalAccessToken.parse((await create({ label: "all" })).body);
    expect(all.scopes).toBe("*");
  });

  // linode-cli and the upstream Terraform provider's token resource send `scopes: "*"` by default;
  // upstream gives the new token the acting token's scopes (issue 47, item 4).
  test('scopes "*" from a limited token: the acting token\'s scopes', async () => {
    const token = await mintFor(server, await bootstrapUserId(server), "account:read_write events:read_only");
    const res = await create({ label: "star", scopes: "*" }, token);
    expect(res.status).toBe(200);
    const made = PersonalAccessToken.parse(res.body);
    expect(made.scopes).toBe("account:read_write events:read_only");
    const read = PersonalAccessToken.parse((await call(server, "GET", `/profile/tokens/${made.id}`)).body);
    expect(read.scopes).toBe(made.scopes);
    // The new token is limited as its creator is.
    expect((await call(server, "GET", "/account/child-accounts", { token: made.token })).status).toBe(401);
  });

  test("scopes may not exceed the acting token's", async () => {
    const token = await mintFor(server, await bootstrapUserId(server), "account:read_write");
    for (const scopes of ["account:read_write events:read_only", "events:read_only"]) {
      const res = await create({ label: "x", scopes }, token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody("Scopes may not exceed those of the acting token", "scopes"));
    }
    const ok = PersonalAccessToken.parse((await create({ label: "x", scopes: "account:read_only" }, token)).body);
    expect(ok.scopes).toBe("account:read_only");
    expect(PersonalAccessToken.parse((await create({ label: "x", scopes: "*" })).body).scopes).toBe("*");
    // Canonical form: the strongest access per area.
    expect(PersonalAccessToken.parse((await create({ label: "x", scopes: "account:read_only  account:read_write" })).body).scopes).toBe("account:read_write");
  });

  test.each([
    [{}, "label", "label is required"],
    [{ label: "" }, "label", "Length must be between 1 and 100 characters."],
    [{ label: "x".repeat(101) }, "label", "Length must be between 1 and 100 characters."],
    [{ label: 5 }, "label", undefined],
    [{ label: "x", scopes: "" }, "scopes", "Scopes must not be empty"],
    [{ label: "x", scopes: "account:write" }, "scopes", undefined],
    [{ label: "x", scopes: "* account:read_only" }, "scopes", "'*' cannot be combined with other scopes"],
    [{ label: "x", scopes: 7 }, "scopes", undefined],
    [{ label: "x", expiry: "tomorrow" }, "expiry", undefined],
    [{ label: "x", expiry: "2030-02-30T00:00:00" }, "expiry", undefined],
    [{ label: "x", expiry: "2025-03-01T12:00:00" }, "expiry", "expiry must be in the future"],
    [{ label: "x", expiry: "2020-01-01T00:00:00" }, "expiry", "expiry must be in the future"],
  ])("%j → 400 naming %s", async (json, field, reason) => {
    const res = await create(json);
    expect(res.status).toBe(400);
    const body = ErrorBody.parse(res.body);
    expect(body.errors[0]!.field).toBe(field);
    if (reason !== undefined) expect(body.errors[0]!.reason).toBe(reason);
  });

  test("a 100-character label is accepted; expiry may carry an offset or fraction", async () => {
    expect((await create({ label: "x".repeat(100) })).status).toBe(200);
    const t = PersonalAccessToken.parse((await create({ label: "x", expiry: "2030-01-01T02:00:00.9+02:00" })).body);
    expect(t.expiry).toBe("2030-01-01T00:00:00");
    const z = PersonalAccessToken.parse((await create({ label: "x", expiry: "2030-01-01T00:00:00Z", scopes: null })).body);
    expect(z.expiry).toBe("2030-01-01T00:00:00");
  });

  test("a proxy user cannot create a personal access token", async () => {
    const proxy = await newActor(server, { userType: "proxy" });
    const res = await create({ label: "x" }, proxy.token);
    expect(res.status).toBe(403);
    expect(ErrorBody.parse(res.body).errors[0]!.reason).toMatch(/proxy user/);
    // It can still read its tokens.
    expect((await call(server, "GET", "/profile/tokens", { token: proxy.token })).status).toBe(200);
  });
});

describe("update", () => {
  test("changes the label only", async () => {
    const created = PersonalAccessToken.parse((await create({ label: "old", scopes: "account:read_only" })).body);
    const res = await call(server, "PUT", `/profile/tokens/${created.id}`, { json: { label: "new", scopes: "*", expiry: "2040-01-01T00:00:00" } });
    expect(res.status).toBe(200);
    expect(PersonalAccessToken.parse(res.body)).toEqual({ ...created, label: "new", token: created.token.slice(0, 16) });
    for (const json of [{}, { label: "" }, { label: "y".repeat(101) }]) {
      const bad = await call(server, "PUT", `/profile/tokens/${created.id}`, { json });
      expect(bad.status).toBe(400);
      expect(ErrorBody.parse(bad.body).errors[0]!.field).toBe("label");
    }
  });

  test("unknown, other users' and malformed ids are 404", async () => {
    const other = await newActor(server);
    const mine = PersonalAccessToken.parse((await create({ label: "mine" })).body);
    for (const path of [`/profile/tokens/${mine.id}`, "/profile/tokens/999999", "/profile/tokens/abc", "/profile/tokens/0"]) {
      for (const [method, json] of [
        ["GET", undefined],
        ["PUT", { label: "z" }],
        ["DELETE", undefined],
      ] as const) {
        const res = await call(server, method, path, { token: other.token, json });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(errorBody("Not found"));
      }
    }
  });
});

describe("revocation and expiry", () => {
  test("a revoked token gets 401 at once and is gone from the list", async () => {
    const created = PersonalAccessToken.parse((await create({ label: "doomed" })).body);
    expect((await call(server, "DELETE", `/profile/tokens/${created.id}`)).body).toEqual({});
    const res = await call(server, "GET", "/profile", { token: created.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    expect((await call(server, "GET", `/profile/tokens/${created.id}`)).status).toBe(404);
    expect((await call(server, "DELETE", `/profile/tokens/${created.id}`)).status).toBe(404);
    const list = TokenPage.parse((await call(server, "GET", "/profile/tokens")).body);
    expect(list.data.map((t) => t.id)).not.toContain(created.id);
  });

  test("a token may revoke itself", async () => {
    const created = PersonalAccessToken.parse((await create({ label: "self" })).body);
    const res = await call(server, "DELETE", `/profile/tokens/${created.id}`, { token: created.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await call(server, "GET", "/profile", { token: created.token })).status).toBe(401);
  });

  test("a token expires at its expiry second: 401, then gone", async () => {
    const created = PersonalAccessToken.parse((await create({ label: "short", expiry: at(server, HOUR) })).body);
    server.clock.advance(HOUR - 1000);
    expect((await call(server, "GET", "/profile", { token: created.token })).status).toBe(200);
    expect((await call(server, "GET", `/profile/tokens/${created.id}`)).status).toBe(200);
    server.clock.advance(1000);
    const res = await call(server, "GET", "/profile", { token: created.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    expect((await call(server, "GET", `/profile/tokens/${created.id}`)).status).toBe(404);
    expect(TokenPage.parse((await call(server, "GET", "/profile/tokens")).body).data.map((t) => t.id)).not.toContain(created.id);
  });

  test("lists page like every collection", async () => {
    const { token } = await newActor(server);
    for (let i = 0; i < 30; i++) await create({ label: `t${i}` }, token);
    const page2 = TokenPage.parse((await call(server, "GET", "/profile/tokens?page=2&page_size=25", { token })).body);
    expect(page2).toMatchObject({ page: 2, pages: 2, results: 31 });
    expect(page2.data).toHaveLength(6);
    expect((await call(server, "GET", "/profile/tokens?page_size=10", { token })).status).toBe(400);
  });
});

describe("OAuth tokens", () => {
  test("an app token works with its scopes, is not a personal access token, and dies with its app", async () => {
    const userId = await bootstrapUserId(server);
    const { app, token } = await oauthApp(server, userId, "account:read_only");
    expect((await call(server, "GET", "/profile/apps", { token })).status).toBe(200);
    expect((await call(server, "POST", "/profile/tokens", { token, json: { label: "x" } })).status).toBe(401);
    const pats = TokenPage.parse((await call(server, "GET", "/profile/tokens")).body);
    expect(pats.data.every((t) => !t.label.startsWith("oauth app"))).toBe(true);

    expect((await call(server, "DELETE", `/profile/apps/${app.id}`)).body).toEqual({});
    const res = await call(server, "GET", "/profile", { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
  });

  test("an app with an expiry stops working then", async () => {
    const { token } = await oauthApp(server, await bootstrapUserId(server), "*", at(server, HOUR));
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    server.clock.advance(HOUR);
    expect((await call(server, "GET", "/profile", { token })).status).toBe(401);
  });
});
