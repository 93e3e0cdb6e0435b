/** @tier unit */
/** `/account/events`: events of the Part-1 operations, the 90-day window, read/seen, grants, X-Filter. */
import type { GrantsResponse } from "../../src/contract";
import { totp } from "../../src/server/areas/security/totp";
import { call, startTestServer, type TestServer } from "./helpers";
import { mintFor, newActor } from "./actors";
import { ed25519Key } from "./sshkey-gen";

interface Ev {
  id: number;
  action: string;
  read: boolean;
  seen: boolean;
  username: string | null;
  status: string;
  entity: { id: number | string; label: string; type: string; url: string } | null;
}
const DAY = 24 * 3600 * 1000;

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

const feed = async (token?: string, headers: Record<string, string> = {}) => {
  const res = await call(server, "GET", "/account/events", { token, headers });
  expect(res.status).toBe(200);
  return (res.body as { data: Ev[] }).data;
};

it("records the Part-1 operations with upstream action names, newest first", async () => {
  const tok = (await call(server, "POST", "/profile/tokens", { json: { label: "t1" } })).body as { id: number };
  await call(server, "PUT", `/profile/tokens/${tok.id}`, { json: { label: "t2" } });
  await call(server, "DELETE", `/profile/tokens/${tok.id}`);
  const key = (await call(server, "POST", "/profile/sshkeys", { json: { label: "k1", ssh_key: ed25519Key() } })).body as { id: number };
  await call(server, "PUT", `/profile/sshkeys/${key.id}`, { json: { label: "k2" } });
  await call(server, "DELETE", `/profile/sshkeys/${key.id}`);
  await call(server, "PUT", "/profile", { json: { timezone: "Europe/Paris" } });
  await call(server, "POST", "/profile/security-questions", {
    json: { security_questions: [1, 2, 3].map((id) => ({ question_id: id, response: `answer ${id}` })) },
  });
  const { secret } = (await call(server, "POST", "/profile/tfa-enable")).body as { secret: string };
  expect((await call(server, "POST", "/profile/tfa-enable-confirm", { json: { tfa_code: totp(secret, server.clock.now()) } })).status).toBe(200);
  await call(server, "POST", "/profile/tfa-disable");

  const events = await feed();
  expect(events.map((e) => e.action)).toEqual([
    "tfa_disabled",
    "tfa_enabled",
    "profile_update",
    "user_ssh_key_delete",
    "user_ssh_key_update",
    "user_ssh_key_add",
    "token_delete",
    "token_update",
    "token_create",
  ]);
  const created = events.find((e) => e.action === "token_create")!;
  expect(created).toEqual({
    action: "token_create",
    created: "2025-03-01T12:00:00",
    duration: 0,
    entity: { id: tok.id, label: "t1", type: "token", url: `/v4/profile/tokens/${tok.id}` },
    id: expect.any(Number),
    message: null,
    percent_complete: null,
    rate: null,
    read: false,
    secondary_entity: null,
    seen: false,
    status: "notification",
    time_remaining: null,
    username: "admin",
  });
  expect(events.find((e) => e.action === "user_ssh_key_delete")!.entity).toMatchObject({ type: "user_ssh_key", label: "k2" });
  const one = await call(server, "GET", `/account/events/${created.id}`);
  expect(one.body).toEqual(created);
});

it("failed operations record nothing", async () => {
  await call(server, "POST", "/profile/tokens", { json: { label: "" } });
  await call(server, "DELETE", "/profile/sshkeys/999");
  expect(await feed()).toEqual([]);
});

it("read marks one event; seen marks every event up to and including the id; only those change them", async () => {
  for (const label of ["a", "b", "c"]) await call(server, "POST", "/profile/tokens", { json: { label } });
  const [c, b, a] = await feed();
  expect((await call(server, "POST", `/account/events/${b!.id}/read`)).body).toEqual({});
  let now = await feed();
  expect(now.map((e) => e.read)).toEqual([false, true, false]);
  expect(now.map((e) => e.seen)).toEqual([false, false, false]);
  expect((await call(server, "POST", `/account/events/${b!.id}/seen`)).body).toEqual({});
  now = await feed();
  expect(now.map((e) => e.seen)).toEqual([false, true, true]);
  // Marking an earlier one does not lower the mark; reading is idempotent.
  await call(server, "POST", `/account/events/${a!.id}/seen`);
  await call(server, "POST", `/account/events/${b!.id}/read`);
  now = await feed();
  expect(now.map((e) => [e.read, e.seen])).toEqual([
    [false, false],
    [true, true],
    [false, true],
  ]);
  // Viewing changes nothing; marks are per user.
  await call(server, "GET", `/account/events/${c!.id}`);
  expect((await feed()).map((e) => e.read)).toEqual([false, true, false]);
  const other = await newActor(server);
  expect((await feed(other.token)).filter((e) => e.read || e.seen)).toEqual([]);
});

it("covers 90 days: older events leave the feed and answer 404", async () => {
  await call(server, "POST", "/profile/tokens", { json: { label: "old" } });
  server.clock.advance(89 * DAY);
  await call(server, "POST", "/profile/tokens", { json: { label: "new" } });
  const [fresh, old] = await feed();
  expect(old!.entity!.label).toBe("old");
  server.clock.advance(DAY);
  expect((await feed()).map((e) => e.entity!.label)).toEqual(["new", "old"]);
  server.clock.advance(1000);
  expect((await feed()).map((e) => e.entity!.label)).toEqual(["new"]);
  expect((await call(server, "GET", `/account/events/${old!.id}`)).status).toBe(404);
  expect((await call(server, "POST", `/account/events/${old!.id}/read`)).status).toBe(404);
  expect((await call(server, "POST", `/account/events/${old!.id}/seen`)).status).toBe(404);
  expect((await call(server, "GET", `/account/events/${fresh!.id}`)).status).toBe(200);
});

it("unknown ids and other accounts' events are 404", async () => {
  expect((await call(server, "GET", "/account/events/12345")).status).toBe(404);
  expect((await call(server, "GET", "/account/events/abc")).status).toBe(404);
  expect((await call(server, "POST", "/account/events/0/read")).status).toBe(404);
  const other = await server.store.accounts.insert({ euuid: "OTHER-EV", active_since: "2025-01-01T00:00:00" });
  const e = await server.domain.events.record({ actor: null, accountId: other.id, action: "account_update", entity: null });
  expect((await call(server, "GET", `/account/events/${e.id}`)).status).toBe(404);
  expect(await feed()).toEqual([]);
});

it("restricted users see only events on entities they may view", async () => {
  const restricted = await newActor(server, { restricted: true });
  await call(server, "POST", "/profile/tokens", { json: { label: "admin's" } });
  await call(server, "POST", "/profile/tokens", { token: restricted.token, json: { label: "mine" } });
  const compute = await server.domain.objects.seedCompute({ label: "web-1" });
  const hidden = await server.domain.objects.seedCompute({ label: "web-2" });
  await server.domain.events.record({
    actor: null,
    accountId: restricted.user.account_id,
    action: "compute_boot",
    entity: { id: compute.id, label: "web-1", type: "compute", url: "" },
  });
  await server.domain.events.record({
    actor: null,
    accountId: restricted.user.account_id,
    action: "compute_boot",
    entity: { id: hidden.id, label: "web-2", type: "compute", url: "" },
  });
  await server.domain.events.record({
    actor: null,
    accountId: restricted.user.account_id,
    action: "account_update",
    entity: { id: "X", label: "acct", type: "account", url: "/v4/account" },
  });

  expect((await feed()).length).toBe(5);
  expect((await feed(restricted.token)).map((e) => e.entity!.label)).toEqual(["mine"]);

  const grants = (await call(server, "GET", "/profile/grants", { token: restricted.token })).body as GrantsResponse;
  await server.domain.users.setGrants(restricted.user.id, {
    ...grants,
    global: { ...grants.global, account_access: "read_only" },
    compute: [{ id: compute.id, label: "web-1", permissions: "read_only" }],
  });
  expect((await feed(restricted.token)).map((e) => e.entity!.label)).toEqual(["acct", "web-1", "mine"]);
  const adminEvent = (await feed()).find((e) => e.entity!.label === "admin's")!;
  expect((await call(server, "GET", `/account/events/${adminEvent.id}`, { token: restricted.token })).status).toBe(404);
  expect((await call(server, "POST", `/account/events/${adminEvent.id}/seen`, { token: restricted.token })).status).toBe(404);
});

it("pages and filters with X-Filter on the upstream filterable fields", async () => {
  for (let i = 0; i < 30; i++) await call(server, "POST", "/profile/tokens", { json: { label: `t${i}` } });
  await call(server, "PUT", "/profile", { json: { timezone: "UTC" } });
  const page2 = await call(server, "GET", "/account/events?page=2&page_size=25");
  expect(page2.body).toMatchObject({ page: 2, pages: 2, results: 31 });
  expect((page2.body as { data: Ev[] }).data).toHaveLength(6);
  const filtered = await feed(undefined, { "x-filter": JSON.stringify({ action: "profile_update" }) });
  expect(filtered.map((e) => e.action)).toEqual(["profile_update"]);
  const byType = await feed(undefined, { "x-filter": JSON.stringify({ "entity.type": "token", read: false }) });
  expect(byType).toHaveLength(30);
  const bad = await call(server, "GET", "/account/events", { headers: { "x-filter": JSON.stringify({ username: "admin" }) } });
  expect(bad.status).toBe(400);
});

it("needs events:read_only (read_write works too); account scopes do not reach it", async () => {
  const userId = (await server.domain.auth.authenticate(server.token!)).user.id;
  await call(server, "POST", "/profile/tokens", { json: { label: "x" } });
  const [e] = await feed();
  for (const scopes of ["events:read_only", "events:read_write"]) {
    const token = await mintFor(server, userId, scopes);
    expect((await call(server, "GET", "/account/events", { token })).status).toBe(200);
    expect((await call(server, "POST", `/account/events/${e!.id}/seen`, { token })).status).toBe(200);
  }
  const token = await mintFor(server, userId, "account:read_write");
  expect((await call(server, "GET", "/account/events", { token })).status).toBe(401);
});
