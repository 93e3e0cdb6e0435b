/** @tier unit */
/**
 * Every account/billing operation against every kind of bad credential, a token without the
 * operation's scope, a restricted user without the grant, and a child-account user where the
 * seed refuses one. No input produces a 5xx.
 */
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { protectedOperations, suiteOf, unrefused } from "./bad-credentials";
import { bootstrapUserId, mintFor, newActor } from "./actors";

const NOT_AUTHORIZED = errorBody("Your OAuth token is not authorized to use this endpoint.");
const EUUID = "CHILD-EUUID-0001";
const CARD = { card_number: "4111111111111111", cvv: "123", expiry_month: 12, expiry_year: 2030 };

interface Op {
  method: string;
  path: string;
  scope: string | null;
  json?: unknown;
  /** What a restricted user without any grant gets. */
  restricted: number;
  /** Refused to a child-account user. */
  childRefused?: boolean;
}

const OPS: Op[] = [
  { method: "GET", path: "/account", scope: "account:read_only", restricted: 403 },
  { method: "PUT", path: "/account", scope: "account:read_write", json: { city: "Paris" }, restricted: 403, childRefused: true },
  { method: "GET", path: "/account/availability", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/availability/us-east", scope: "account:read_only", restricted: 403 },
  { method: "POST", path: "/account/cancel", scope: "account:read_write", json: {}, restricted: 403, childRefused: true },
  { method: "GET", path: "/account/child-accounts", scope: "child_account:read_only", restricted: 403, childRefused: true },
  { method: "GET", path: `/account/child-accounts/${EUUID}`, scope: "child_account:read_only", restricted: 403, childRefused: true },
  { method: "POST", path: `/account/child-accounts/${EUUID}/token`, scope: "child_account:read_write", restricted: 403, childRefused: true },
  { method: "POST", path: "/account/credit-card", scope: "account:read_write", json: CARD, restricted: 403 },
  { method: "GET", path: "/account/invoices", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/invoices/{invoice}", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/invoices/{invoice}/items", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/logins", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/logins/{login}", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/maintenance", scope: null, restricted: 200 },
  { method: "GET", path: "/account/notifications", scope: "account:read_only", restricted: 403 },
  { method: "GET", path: "/account/payment-methods", scope: "account:read_only", restricted: 403 },
  {
    method: "POST",
    path: "/account/payment-methods",
    scope: "account:read_write",
    json: { type: "credit_card", is_default: false, data: CARD },
    restricted: 403,
  },
  { method: "GET", path: "/account/payment-methods/{method}", scope: "account:read_only", restricted: 403 },
  { method: "POST", path: "/account/payment-methods/{method}/make-default", scope: "account:read_write", restricted: 403 },
  { method: "DELETE", path: "/account/payment-methods/{spare}", scope: "account:read_write", restricted: 403 },
];

let server: TestServer;
let ids: Record<string, number>;
const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_m, k: string) => String(ids[k] ?? 1));
const label = (op: Op) => `${op.method} ${op.path}`;

beforeAll(async () => {
  server = await startTestServer();
  const accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
  await server.domain.childAccounts.seedChild({ euuid: EUUID });
  const invoice = await server.domain.billing.seedInvoice(accountId, {
    date: "2025-02-01T00:00:00",
    label: "Invoice",
    subtotal: 1,
    tax: 0,
    tax_summary: [],
    total: 1,
    billing_source: "compute",
  });
  const login = await server.domain.logins.record({ userId: await bootstrapUserId(server), ip: "192.0.2.1" });
  await call(server, "POST", "/account/payment-methods", { json: { type: "credit_card", is_default: true, data: CARD } });
  await call(server, "POST", "/account/payment-methods", { json: { type: "credit_card", is_default: false, data: CARD } });
  const methods = (await server.store.payments.listPaymentMethods(accountId)).map((m) => m.id);
  ids = { invoice, login: login.id, method: methods[0]!, spare: methods[1]! };
});
afterAll(async () => {
  await server.close();
});

test("every bad credential of the catalogue: 401 on every other account operation in the route table", async () => {
  const ops = (await protectedOperations(server)).filter((op) => suiteOf(op.path) === "account");
  expect(ops.length).toBe(OPS.length);
  expect(await unrefused(server, ops)).toEqual([]);
});

describe.each(OPS)("$method $path", (op) => {
  const send = (token: string | null, extra: { headers?: Record<string, string> } = {}) =>
    call(server, op.method, fill(op.path), { token, json: op.json, ...extra });

  test("a token without the operation's scope: 401 (upstream's status); a read-only token on a write: 401", async () => {
    if (op.scope === null) return;
    const userId = await bootstrapUserId(server);
    const res = await send(await mintFor(server, userId, "events:read_only"));
    expect({ op: label(op), status: res.status, body: res.body }).toEqual({ op: label(op), status: 401, body: NOT_AUTHORIZED });
    expect(res.headers["x-accepted-oauth-scopes"]).toBe(op.scope);
    if (op.scope.endsWith(":read_write")) {
      const ro = await send(await mintFor(server, userId, op.scope.replace("read_write", "read_only")));
      expect({ op: label(op), status: ro.status }).toEqual({ op: label(op), status: 401 });
    }
  });

  test("a restricted user without grants", async () => {
    const { token } = await newActor(server, { restricted: true });
    const res = await send(token);
    expect({ op: label(op), status: res.status }).toEqual({ op: label(op), status: op.restricted });
  });

  test("a child-account user", async () => {
    const account = await server.store.accounts.byEuuid(EUUID);
    const user = await server.domain.users.create({ username: `child-${op.method}-${op.path}`.slice(0, 60), email: "c@example.com", accountId: account!.id });
    const res = await send(await mintFor(server, user.id));
    expect(res.status).toBeLessThan(500);
    if (op.childRefused) expect({ op: label(op), status: res.status }).toEqual({ op: label(op), status: 403 });
  });
});

describe("no input produces a 5xx", () => {
  const BODIES: unknown[] = [
    null,
    [],
    "x",
    1,
    true,
    { card_number: null },
    { data: "x" },
    { data: { card_number: [] } },
    { company: { a: 1 } },
    { comments: ["x"] },
  ];
  test.each(OPS.filter((op) => op.method !== "GET" && op.path !== "/account/cancel"))("$method $path", async (op) => {
    for (const json of BODIES) {
      const res = await call(server, op.method, fill(op.path), { json });
      expect({ json, status: res.status < 500 }).toEqual({ json, status: true });
    }
    for (const path of [
      "/account/payment-methods/0",
      "/account/payment-methods/99999999999999999999",
      "/account/invoices/-1",
      "/account/invoices/x/items",
      "/account/logins/1e3",
      "/account/availability/%20",
      "/account/child-accounts/%00",
    ]) {
      const res = await call(server, "GET", path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    expect((await call(server, "GET", "/account/invoices?page=x")).status).toBe(400);
  });
});
