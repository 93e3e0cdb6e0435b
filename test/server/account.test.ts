/** @tier unit */
/** `GET/PUT /account`: shape, partial update, limits, US zip and US/CA state rules, parent and child rules. */
import { emptyGrants, Account } from "../../src/contract";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { bootstrapUserId, mintFor, newActor } from "./actors";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

const put = (json: unknown, token?: string) => call(server, "PUT", "/account", { json, token });

describe("GET /account", () => {
  test("answers the bootstrap account with defaults", async () => {
    const res = await call(server, "GET", "/account");
    expect(res.status).toBe(200);
    const account = Account.parse(res.body);
    expect(account).toMatchObject({
      email: "admin@example.com",
      balance: 0,
      balance_uninvoiced: 0,
      billing_source: "compute",
      active_promotions: [],
      credit_card: { expiry: null, last_four: null },
      active_since: "2025-03-01T12:00:00",
    });
    expect(account.euuid).toMatch(/^[0-9A-F-]{36}$/);
  });

  test("shows seeded money fields and the default card", async () => {
    const accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
    await server.domain.accountDetails.seedAccount(accountId, { balance: 12.5, balance_uninvoiced: 3 });
    await call(server, "POST", "/account/credit-card", { json: { card_number: "4111111111111111", cvv: "123", expiry_month: 4, expiry_year: 2030 } });
    const res = await call(server, "GET", "/account");
    expect(res.body).toMatchObject({ balance: 12.5, balance_uninvoiced: 3, credit_card: { expiry: "04/2030", last_four: 1111 } });
  });
});

describe("PUT /account", () => {
  test("partial update: omitted fields stay; read-only fields are ignored", async () => {
    let res = await put({ first_name: "Ada", last_name: "Lovelace", company: "Acme", balance: 1000, euuid: "x" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ first_name: "Ada", last_name: "Lovelace", company: "Acme", balance: 0 });
    res = await put({ city: "Philadelphia" });
    expect(res.body).toMatchObject({ first_name: "Ada", company: "Acme", city: "Philadelphia" });
    expect((await call(server, "GET", "/account")).body).toMatchObject({ city: "Philadelphia", first_name: "Ada" });
  });

  test.each([
    ["address_1", 64],
    ["address_2", 64],
    ["city", 24],
    ["company", 128],
    ["first_name", 50],
    ["last_name", 50],
    ["phone", 32],
    ["state", 24],
    ["tax_id", 25],
  ])("%s accepts %i characters and refuses one more", async (field, max) => {
    expect((await put({ [field]: "a".repeat(max) })).status).toBe(200);
    const res = await put({ [field]: "a".repeat(max + 1) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(`Length must be ${max} characters or less.`, field));
  });

  test("email: a valid address of at most 128 characters", async () => {
    const local = "a".repeat(128 - "@example.com".length);
    expect((await put({ email: `${local}@example.com` })).status).toBe(200);
    expect((await put({ email: `${local}a@example.com` })).status).toBe(400);
    const res = await put({ email: "not an email" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ field: "email" }] });
  });

  test("wrong types, a bad country and every problem at once", async () => {
    const res = await put({ city: 5, country: "USA", zip: 12345 });
    expect(res.status).toBe(400);
    const fields = (res.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field).sort();
    expect(fields).toEqual(["city", "country", "zip"]);
    expect((await call(server, "PUT", "/account", { body: "[]", headers: { "content-type": "application/json" } })).status).toBe(400);
  });

  test("country is stored upper-case", async () => {
    expect((await put({ country: "gb", state: "Greater London" })).body).toMatchObject({ country: "GB", state: "Greater London" });
  });

  test("rule 1: country US needs a valid US zip", async () => {
    let res = await put({ country: "US", zip: "1234", state: "PA" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("zip must be a valid US zip code (12345 or 12345-6789)", "zip"));
    expect((await put({ country: "US", zip: "19106", state: "PA" })).status).toBe(200);
    expect((await put({ zip: "19106-1234" })).status).toBe(200);
    res = await put({ zip: "ABCDE" });
    expect(res.status).toBe(400);
    // Nothing changed by the refused update.
    expect((await call(server, "GET", "/account")).body).toMatchObject({ zip: "19106-1234", country: "US" });
    // Outside the US any zip goes.
    expect((await put({ country: "GB", zip: "SW1A 1AA", state: "London" })).status).toBe(200);
    // Switching to US with a non-US zip in place fails.
    expect((await put({ country: "US", state: "PA" })).status).toBe(400);
  });

  test("US and CA states: two-letter codes only; US military AA, AE, AP", async () => {
    expect((await put({ country: "US", zip: "10001", state: "Pennsylvania" })).body).toEqual(
      errorBody("state must be a two-letter US state code (AA, AE or AP for military addresses)", "state"),
    );
    for (const state of ["NY", "AA", "AE", "AP", "DC", "pr"]) {
      const res = await put({ country: "US", zip: "10001", state });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ state: state.toUpperCase() });
    }
    expect((await put({ state: "ZZ" })).status).toBe(400);
    expect((await put({ country: "CA", state: "ON", zip: "K1A 0B1" })).body).toMatchObject({ country: "CA", state: "ON" });
    expect((await put({ country: "CA", state: "NY" })).body).toEqual(errorBody("state must be a two-letter Canadian province code", "state"));
    // Outside US and CA the state is the province, free text.
    expect((await put({ country: "FR", state: "Île-de-France" })).status).toBe(200);
  });

  test("rule 2: a parent's company cannot change; the current value is accepted", async () => {
    await put({ company: "Parent Co" });
    await server.domain.childAccounts.seedChild({});
    const res = await put({ company: "Renamed" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorBody("The company of a parent account cannot be changed", "company"));
    expect((await put({ company: "Parent Co", city: "Austin" })).status).toBe(200);
  });

  test("rule 2: a child account user cannot update the account", async () => {
    const { account } = await server.domain.childAccounts.seedChild({});
    const child = await server.domain.users.create({ username: "childuser", email: "c@example.com", accountId: account.id });
    const token = await mintFor(server, child.id);
    const res = await put({ city: "Nowhere" }, token);
    expect(res.status).toBe(403);
    expect((await call(server, "GET", "/account", { token })).body).toMatchObject({ billing_source: "compute", city: "" });
  });

  test("restricted users need account_access: read_only to read, read_write to update", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    expect((await call(server, "GET", "/account", { token })).status).toBe(403);
    const grants = emptyGrants();
    grants.global.account_access = "read_only";
    await server.domain.users.setGrants(user.id, grants);
    expect((await call(server, "GET", "/account", { token })).status).toBe(200);
    expect((await put({ city: "X" }, token)).status).toBe(403);
    grants.global.account_access = "read_write";
    await server.domain.users.setGrants(user.id, grants);
    expect((await put({ city: "X" }, token)).status).toBe(200);
  });

  test("an update records an account_update event", async () => {
    await put({ company: "Evented" });
    const user = (await server.domain.auth.authenticate(server.token!)).user;
    const events = await server.store.events.listSince(user.account_id, "2000-01-01T00:00:00");
    expect(events.map((e) => [e.action, e.username, e.entity?.type])).toEqual([["account_update", user.username, "account"]]);
    expect(await bootstrapUserId(server)).toBe(user.id);
  });
});
