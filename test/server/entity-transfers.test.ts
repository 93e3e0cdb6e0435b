/** @tier unit */
/** `/account/entity-transfers` (deprecated): create, view, accept, cancel, 24-hour expiry, is_sender. */
import { call, startTestServer, type TestServer } from "./helpers";
import { mintFor, newActor } from "./actors";

const HOUR = 3600 * 1000;
interface Transfer {
  token: string;
  status: string;
  is_sender: boolean;
  entities: { computes: number[] };
  created: string;
  expiry: string;
  updated: string;
}

let server: TestServer;
let receiver: string;
let receiverAccount: number;
beforeEach(async () => {
  server = await startTestServer();
  const account = await server.store.accounts.insert({ euuid: "RECEIVER-ACCT", active_since: "2025-01-01T00:00:00" });
  receiverAccount = account.id;
  const user = await server.domain.users.create({ username: "receiver", email: "r@example.com", accountId: account.id });
  receiver = await mintFor(server, user.id);
});
afterEach(() => server.close());

const create = (computes: unknown, token?: string) => call(server, "POST", "/account/entity-transfers", { token, json: { entities: { computes } } });

it("creates a pending transfer that expires 24 hours later, visible to both sides with is_sender", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const res = await create([a.id]);
  expect(res.status).toBe(200);
  const t = res.body as Transfer;
  expect(t).toEqual({
    token: expect.stringMatching(/^[0-9A-F-]{36}$/),
    status: "pending",
    is_sender: true,
    entities: { computes: [a.id] },
    created: "2025-03-01T12:00:00",
    updated: "2025-03-01T12:00:00",
    expiry: "2025-03-02T12:00:00",
  });
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`)).body).toEqual(t);
  expect((await call(server, "GET", `/account/entity-transfers/${t.token.toLowerCase()}`, { token: receiver })).body).toEqual({ ...t, is_sender: false });
  expect((await call(server, "GET", "/account/entity-transfers")).body).toMatchObject({ data: [t], results: 1 });
  // Not yet the receiver's: their list is empty until they accept.
  expect((await call(server, "GET", "/account/entity-transfers", { token: receiver })).body).toMatchObject({ results: 0 });
});

it("accept moves the instances and completes the transfer", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1", tags: ["t-one"] });
  const t = (await create([a.id])).body as Transfer;
  server.clock.advance(HOUR);
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token: receiver })).body).toEqual({});
  const after = (await call(server, "GET", `/account/entity-transfers/${t.token}`, { token: receiver })).body as Transfer;
  expect(after).toMatchObject({ status: "completed", is_sender: false, updated: "2025-03-01T13:00:00" });
  expect((await call(server, "GET", "/account/entity-transfers", { token: receiver })).body).toMatchObject({ results: 1 });
  expect((await server.store.objects.get("compute", a.id))?.account_id).toBe(receiverAccount);
  // The sender no longer owns it: a new transfer or tag with it is refused.
  expect((await create([a.id])).status).toBe(400);
  expect((await call(server, "GET", "/tags/t-one")).body).toMatchObject({ results: 0 });
  // Moves from a completed transfer are refused.
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token: receiver })).status).toBe(400);
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`)).status).toBe(400);
  const actions = (await call(server, "GET", "/account/events")).body as { data: Array<{ action: string }> };
  expect(actions.data.map((e) => e.action)).toEqual(["entity_transfer_accept", "entity_transfer_create"]);
});

it("the sender cancels a pending transfer; the receiver cannot, and nobody can accept it after", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const t = (await create([a.id])).body as Transfer;
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`, { token: receiver })).status).toBe(403);
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`)).body).toEqual({});
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`)).body).toMatchObject({ status: "canceled" });
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token: receiver })).status).toBe(400);
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`)).status).toBe(400);
  // Once canceled, the same instance can be offered again.
  expect((await create([a.id])).status).toBe(200);
});

it("is stale from 24 hours after creation (by the clock) and can then be neither accepted nor canceled", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const t = (await create([a.id])).body as Transfer;
  server.clock.advance(24 * HOUR - 1000);
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`)).body).toMatchObject({ status: "pending" });
  server.clock.advance(1000);
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`)).body).toMatchObject({ status: "stale" });
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token: receiver })).status).toBe(400);
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`)).status).toBe(400);
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`)).body).toMatchObject({ status: "stale" });
  expect((await server.store.objects.get("compute", a.id))?.account_id).not.toBe(receiverAccount);
  // A stale transfer no longer holds its instances.
  expect((await create([a.id])).status).toBe(200);
});

it("creates only with the account's own instances, not already in a pending transfer", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const theirs = await server.domain.objects.seedCompute({ label: "theirs", accountId: receiverAccount });
  expect((await create([theirs.id])).body).toEqual({ errors: [{ field: "entities.computes.0", reason: `compute ${theirs.id} is not on this account` }] });
  expect((await create([a.id, 9999])).status).toBe(400);
  expect((await call(server, "GET", "/account/entity-transfers")).body).toMatchObject({ results: 0 });
  expect((await create([a.id])).status).toBe(200);
  expect((await create([a.id])).body).toEqual({ errors: [{ field: "entities.computes.0", reason: `compute ${a.id} is already part of a pending transfer` }] });
  for (const json of [
    {},
    { entities: {} },
    { entities: { computes: [] } },
    { entities: { computes: ["1"] } },
    { entities: { computes: [a.id], domains: [1] } },
  ]) {
    expect((await call(server, "POST", "/account/entity-transfers", { json })).status).toBe(400);
  }
});

it("the sender cannot accept its own transfer; unknown and malformed tokens are 404", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const t = (await create([a.id])).body as Transfer;
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`)).status).toBe(400);
  for (const token of ["123E4567-E89B-12D3-A456-426614174000", "not-a-uuid"]) {
    expect((await call(server, "GET", `/account/entity-transfers/${token}`)).status).toBe(404);
    expect((await call(server, "DELETE", `/account/entity-transfers/${token}`)).status).toBe(404);
    expect((await call(server, "POST", `/account/entity-transfers/${token}/accept`)).status).toBe(404);
  }
});

it("is for unrestricted users only", async () => {
  const a = await server.domain.objects.seedCompute({ label: "web-1" });
  const t = (await create([a.id])).body as Transfer;
  const { token } = await newActor(server, { restricted: true });
  expect((await call(server, "GET", "/account/entity-transfers", { token })).status).toBe(403);
  expect((await create([a.id], token)).status).toBe(403);
  expect((await call(server, "GET", `/account/entity-transfers/${t.token}`, { token })).status).toBe(403);
  expect((await call(server, "DELETE", `/account/entity-transfers/${t.token}`, { token })).status).toBe(403);
  expect((await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token })).status).toBe(403);
});
