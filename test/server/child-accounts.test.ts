/** @tier unit */
/** Child accounts and proxy-user tokens: rule 4 (who may list and view), the proxy user's name, token lifetime and permissions. */
import { createHash } from "node:crypto";
import { ChildAccount, emptyGrants, paginated, PersonalAccessToken } from "../../src/contract";
import { MINUTE } from "../../src/server/domain/context";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { mintFor, newActor } from "./actors";
import { ed25519Key } from "./sshkey-gen";

let server: TestServer;
const COMPANY = "Parent Company Incorporated";
const EUUID = "A1B2C3D4-0000-4000-A000-000000000001";
beforeEach(async () => {
  server = await startTestServer();
  await call(server, "PUT", "/account", { json: { company: COMPANY } });
});
afterEach(async () => {
  await server.close();
});

const seed = (options: Parameters<TestServer["domain"]["childAccounts"]["seedChild"]>[0] = {}) =>
  server.domain.childAccounts.seedChild({
    euuid: EUUID,
    details: { company: "Child Co", email: "child@example.com", country: "US", zip: "10001" },
    ...options,
  });

test("list and view child accounts; canceled ones and strangers are not found", async () => {
  await seed();
  const second = await server.domain.childAccounts.seedChild({ euuid: "SECOND", active: false });
  let res = await call(server, "GET", "/account/child-accounts");
  expect(res.status).toBe(200);
  const page = paginated(ChildAccount).parse(res.body);
  expect(page.results).toBe(1);
  expect(page.data[0]).toMatchObject({ euuid: EUUID, company: "Child Co", billing_source: "external", balance: 0, credit_card: { last_four: null } });
  expect(page.data[0]).not.toHaveProperty("active_promotions");
  expect((await call(server, "GET", `/account/child-accounts/${EUUID}`)).body).toEqual(page.data[0]);
  expect((await call(server, "GET", "/account/child-accounts/SECOND")).status).toBe(404);
  expect((await call(server, "GET", "/account/child-accounts/nope")).status).toBe(404);
  await server.domain.childAccounts.setChildActive(second.account.id, true);
  res = await call(server, "GET", "/account/child-accounts?page_size=25");
  expect(res.body).toMatchObject({ results: 2 });
});

test("the proxy user is named from the parent's company and the child's euuid", async () => {
  const { proxyUser } = await seed();
  const hash = createHash("sha256")
    .update(COMPANY + EUUID)
    .digest("hex")
    .slice(0, 16);
  expect(proxyUser.username).toBe(`${COMPANY.slice(0, 15)}_${hash}`);
  expect(proxyUser.user_type).toBe("proxy");
});

test("proxy token: full value once, 15 minutes, not renewable, acts as the proxy user in the child account", async () => {
  const { account } = await seed();
  const res = await call(server, "POST", `/account/child-accounts/${EUUID}/token`);
  expect(res.status).toBe(200);
  const token = PersonalAccessToken.parse(res.body);
  expect(token).toMatchObject({ scopes: "*", created: "2025-03-01T12:00:00", expiry: "2025-03-01T12:15:00" });
  expect(token.token).toMatch(/^[0-9a-f]{64}$/);
  expect(token.label).toMatch(/^admin_\d+_\d+$/);

  // The bearer acts as the proxy user, in the child account.
  const profile = await call(server, "GET", "/profile", { token: token.token });
  expect(profile.body).toMatchObject({ username: expect.stringMatching(/^Parent Company _[0-9a-f]{16}$/) });
  expect((await call(server, "GET", "/account", { token: token.token })).body).toMatchObject({ euuid: EUUID, company: "Child Co" });
  // A child account user: no account update, no cancel, no child accounts, no personal tokens.
  expect((await call(server, "PUT", "/account", { token: token.token, json: { city: "X" } })).status).toBe(403);
  expect((await call(server, "POST", "/account/cancel", { token: token.token, json: {} })).status).toBe(403);
  expect((await call(server, "GET", "/account/child-accounts", { token: token.token })).status).toBe(403);
  expect((await call(server, "POST", "/profile/tokens", { token: token.token, json: { label: "x" } })).status).toBe(403);
  expect(account.euuid).toBe(EUUID);

  server.clock.advance(15 * MINUTE - 1000);
  expect((await call(server, "GET", "/profile", { token: token.token })).status).toBe(200);
  server.clock.advance(1000);
  expect((await call(server, "GET", "/profile", { token: token.token })).status).toBe(401);

  // A new token is a new token; the old one stays expired.
  const again = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body);
  expect(again.token).not.toBe(token.token);
  expect((await call(server, "GET", "/profile", { token: token.token })).status).toBe(401);
  expect((await call(server, "GET", "/profile", { token: again.token })).status).toBe(200);
});

test("the token inherits the proxy user's permissions (a restricted proxy user stays restricted)", async () => {
  const { proxyUser } = await seed({ proxyRestricted: true });
  const token = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body).token;
  expect((await call(server, "GET", "/account", { token })).status).toBe(403);
  const grants = emptyGrants();
  grants.global.account_access = "read_only";
  await server.domain.users.setGrants(proxyUser.id, grants);
  expect((await call(server, "GET", "/account", { token })).status).toBe(200);
});

test("rule 4: restricted parent users need child_account_access for list, view and token", async () => {
  await seed();
  const { user, token } = await newActor(server, { restricted: true });
  for (const [method, path] of [
    ["GET", "/account/child-accounts"],
    ["GET", `/account/child-accounts/${EUUID}`],
    ["POST", `/account/child-accounts/${EUUID}/token`],
  ] as const) {
    const res = await call(server, method, path, { token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorBody("Unauthorized"));
  }
  const grants = emptyGrants();
  grants.global.child_account_access = true;
  await server.domain.users.setGrants(user.id, grants);
  expect((await call(server, "GET", "/account/child-accounts", { token })).status).toBe(200);
  expect((await call(server, "GET", `/account/child-accounts/${EUUID}`, { token })).status).toBe(200);
  expect((await call(server, "POST", `/account/child-accounts/${EUUID}/token`, { token })).status).toBe(200);
});

test("scopes: child_account:read_only lists, child_account:read_write mints", async () => {
  await seed();
  const userId = (await server.domain.auth.authenticate(server.token!)).user.id;
  const ro = await mintFor(server, userId, "child_account:read_only");
  expect((await call(server, "GET", "/account/child-accounts", { token: ro })).status).toBe(200);
  expect((await call(server, "POST", `/account/child-accounts/${EUUID}/token`, { token: ro })).status).toBe(401);
  const rw = await mintFor(server, userId, "child_account:read_write");
  expect((await call(server, "POST", `/account/child-accounts/${EUUID}/token`, { token: rw })).status).toBe(200);
  const acct = await mintFor(server, userId, "account:read_write");
  expect((await call(server, "GET", "/account/child-accounts", { token: acct })).status).toBe(401);
});

test("an account without children lists none; a seeded child cannot itself have children", async () => {
  expect((await call(server, "GET", "/account/child-accounts")).body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  const { account } = await seed();
  await expect(server.domain.childAccounts.seedChild({ parentAccountId: account.id })).rejects.toThrow();
  await expect(seed()).rejects.toThrow(/euuid/);
});

describe("canceling a child account refuses every token acting in it on its next request", () => {
  const admin = (method: string, path: string, json?: unknown) =>
    call(server, method, `//__admin${path}`, { token: server.adminToken, ...(json === undefined ? {} : { json }) });
  const addKey = (token: string) => call(server, "POST", "/profile/sshkeys", { token, json: { label: "k", ssh_key: ed25519Key() } });

  test("through the admin API: proxy tokens (writes included) and the child's other users' tokens get 401", async () => {
    const { account, proxyUser } = await seed();
    const proxy = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body).token;
    const older = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body).token;
    const own = await mintFor(server, proxyUser.id);
    const childUser = await server.domain.users.create({ accountId: account.id, username: "child-user", email: "c@example.com" });
    const colleague = await mintFor(server, childUser.id);
    expect((await addKey(proxy)).status).toBe(200);
    expect((await call(server, "GET", "/profile", { token: older })).status).toBe(200);

    expect((await admin("PUT", `/child-accounts/${account.id}/active`, { active: false })).status).toBe(200);
    for (const token of [proxy, older, own, colleague]) {
      const write = await addKey(token);
      expect({ status: write.status, body: write.body }).toEqual({ status: 401, body: errorBody("Invalid Token") });
      expect((await call(server, "GET", "/profile", { token })).status).toBe(401);
    }
    // The parent's own tokens are untouched; a new mint finds no (active) child.
    expect((await call(server, "GET", "/profile")).status).toBe(200);
    expect((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).status).toBe(404);

    // Activating again brings no token back; a new mint works.
    expect((await admin("PUT", `/child-accounts/${account.id}/active`, { active: true })).status).toBe(200);
    expect((await call(server, "GET", "/profile", { token: proxy })).status).toBe(401);
    const fresh = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body).token;
    expect((await addKey(fresh)).status).toBe(200);
  });

  test("canceling the parent through the API, once its children are canceled, refuses the parent's tokens", async () => {
    const { account } = await seed();
    const proxy = PersonalAccessToken.parse((await call(server, "POST", `/account/child-accounts/${EUUID}/token`)).body).token;
    expect((await call(server, "POST", "/account/cancel", { json: {} })).status).toBe(409);
    expect((await addKey(proxy)).status).toBe(200);
    await server.domain.childAccounts.setChildActive(account.id, false);
    expect((await addKey(proxy)).status).toBe(401);
    const parentToken = server.token!;
    expect((await call(server, "POST", "/account/cancel", { json: {} })).status).toBe(200);
    expect((await addKey(parentToken)).status).toBe(401);
  });
});
