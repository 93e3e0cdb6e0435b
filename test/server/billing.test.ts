/** @tier unit */
/**
 * Cancel, the deprecated credit card, payment methods, invoices, availability, account
 * logins, maintenance and notifications.
 */
import { emptyGrants, Invoice, PaymentMethod, paginated } from "../../src/contract";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { bootstrapUserId, mintFor, newActor } from "./actors";

let server: TestServer;
let accountId: number;
beforeEach(async () => {
  server = await startTestServer();
  accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
});
afterEach(async () => {
  await server.close();
});

const CARD = { card_number: "4111111111111111", cvv: "123", expiry_month: 12, expiry_year: 2030 };
const addMethod = (data: object = CARD, is_default = false, token?: string) =>
  call(server, "POST", "/account/payment-methods", { json: { type: "credit_card", is_default, data }, token });
const methods = async () => paginated(PaymentMethod).parse((await call(server, "GET", "/account/payment-methods")).body).data;

describe("POST /account/cancel", () => {
  test("with no balance: survey link, then every token of the account is revoked", async () => {
    const other = await newActor(server);
    const res = await call(server, "POST", "/account/cancel", { json: { comments: "bye" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ survey_link: expect.stringMatching(/^https:\/\//) });
    expect((await call(server, "GET", "/account")).status).toBe(401);
    expect((await call(server, "GET", "/profile", { token: other.token })).status).toBe(401);
  });

  test("the body is optional; comments must be a string", async () => {
    expect((await call(server, "POST", "/account/cancel", { json: { comments: 5 } })).status).toBe(400);
    expect((await call(server, "POST", "/account/cancel", { json: {} })).status).toBe(200);
  });

  test("charges the balance to the card; a declining card is 409 with a reason and no field, and the account stays", async () => {
    await server.domain.accountDetails.seedAccount(accountId, { balance: 25.5 });
    let res = await call(server, "POST", "/account/cancel", { json: {} });
    expect(res.status).toBe(409);
    expect((await call(server, "GET", "/account")).status).toBe(200);

    expect((await addMethod()).status).toBe(200);
    await server.domain.billing.setCardDeclines(accountId, true);
    res = await call(server, "POST", "/account/cancel", { json: {} });
    expect(res.status).toBe(409);
    const errors = (res.body as { errors: Array<Record<string, unknown>> }).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).not.toHaveProperty("field");
    expect(errors[0]!.reason).toContain("$25.50");
    expect((await call(server, "GET", "/account")).body).toMatchObject({ balance: 25.5 });

    await server.domain.billing.setCardDeclines(accountId, false);
    res = await call(server, "POST", "/account/cancel", { json: {} });
    expect(res.status).toBe(200);
    expect((await server.store.billing.getAccount(accountId))!.details.balance).toBe(0);
    const actions = (await server.store.events.listSince(accountId, "2000-01-01T00:00:00")).map((e) => e.action);
    expect(actions).toEqual(["payment_method_add", "payment_submitted"]);
  });

  test("unrestricted users only; a child account user cannot; a parent with an active child cannot", async () => {
    const restricted = await newActor(server, { restricted: true });
    const grants = emptyGrants();
    grants.global.account_access = "read_write";
    grants.global.cancel_account = true;
    await server.domain.users.setGrants(restricted.user.id, grants);
    expect((await call(server, "POST", "/account/cancel", { json: {}, token: restricted.token })).status).toBe(403);

    const { account } = await server.domain.childAccounts.seedChild({});
    const childUser = await server.domain.users.create({ username: "kid", email: "k@example.com", accountId: account.id });
    expect((await call(server, "POST", "/account/cancel", { json: {}, token: await mintFor(server, childUser.id) })).status).toBe(403);

    const res = await call(server, "POST", "/account/cancel", { json: {} });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(errorBody("A parent account with an active child account cannot be canceled"));
    await server.domain.childAccounts.setChildActive(account.id, false);
    expect((await call(server, "POST", "/account/cancel", { json: {} })).status).toBe(200);
  });
});

describe("POST /account/credit-card (deprecated)", () => {
  test("adds a card and makes it the default", async () => {
    expect((await addMethod({ ...CARD, card_number: "5555555555554444" })).status).toBe(200);
    const res = await call(server, "POST", "/account/credit-card", { json: { ...CARD, card_number: "378282246310005" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const list = await methods();
    expect(list.map((m) => [m.is_default, (m.data as { card_type: string }).card_type])).toEqual([
      [false, "MasterCard"],
      [true, "American Express"],
    ]);
    expect((await call(server, "GET", "/account")).body).toMatchObject({ credit_card: { last_four: 5, expiry: "12/2030" } });
  });

  test.each([
    [{ ...CARD, card_number: "4111 1111 1111 1111" }, "card_number"],
    [{ ...CARD, card_number: "4111-1111-1111-1111" }, "card_number"],
    [{ ...CARD, card_number: "4".repeat(13) }, "card_number"],
    [{ ...CARD, card_number: "4".repeat(25) }, "card_number"],
    [{ ...CARD, card_number: 4111111111111111 }, "card_number"],
    [{ ...CARD, cvv: "12" }, "cvv"],
    [{ ...CARD, cvv: "12345" }, "cvv"],
    [{ ...CARD, cvv: "12a" }, "cvv"],
    [{ ...CARD, expiry_month: 0 }, "expiry_month"],
    [{ ...CARD, expiry_month: 13 }, "expiry_month"],
    [{ ...CARD, expiry_month: 1.5 }, "expiry_month"],
    [{ ...CARD, expiry_year: 30 }, "expiry_year"],
    [{ ...CARD, expiry_year: 20301 }, "expiry_year"],
    [{ ...CARD, expiry_year: "2030" }, "expiry_year"],
    [{ ...CARD, expiry_year: 2024 }, "expiry_year"],
    [{ ...CARD, expiry_year: 2025, expiry_month: 2 }, "expiry_year"],
  ])("refuses %j naming %s", async (json, field) => {
    const res = await call(server, "POST", "/account/credit-card", { json });
    expect(res.status).toBe(400);
    expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe(field);
  });

  test("bounds accepted: 14 and 24 digits, 3 and 4 digit cvv, this month", async () => {
    for (const json of [
      { ...CARD, card_number: "4".repeat(14) },
      { ...CARD, card_number: "4".repeat(24), cvv: "1234" },
      { ...CARD, expiry_year: 2025, expiry_month: 3 },
    ]) {
      expect((await call(server, "POST", "/account/credit-card", { json })).status).toBe(200);
    }
    for (const field of ["card_number", "cvv", "expiry_month", "expiry_year"]) {
      const { [field as keyof typeof CARD]: _gone, ...rest } = CARD;
      const res = await call(server, "POST", "/account/credit-card", { json: rest });
      expect(res.body).toEqual(errorBody(`${field} is required`, field));
    }
  });
});

describe("/account/payment-methods", () => {
  test("add, list, view, make default, delete; the first card is the default", async () => {
    expect((await addMethod()).body).toEqual({});
    expect((await addMethod({ ...CARD, card_number: "6011111111111117", expiry_month: 1 })).status).toBe(200);
    let list = await methods();
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({
      type: "credit_card",
      is_default: true,
      created: "2025-03-01T12:00:00",
      data: { card_type: "Visa", last_four: "1111", expiry: "12/2030" },
    });
    expect(list[1]).toMatchObject({ is_default: false, data: { card_type: "Discover", last_four: "1117", expiry: "01/2030" } });

    const [first, second] = list as [PaymentMethod, PaymentMethod];
    expect((await call(server, "GET", `/account/payment-methods/${second.id}`)).body).toEqual(second);

    let res = await call(server, "DELETE", `/account/payment-methods/${first.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("The default payment method cannot be deleted; make another one the default first"));

    expect((await call(server, "POST", `/account/payment-methods/${second.id}/make-default`)).body).toEqual({});
    list = await methods();
    expect(list.map((m) => m.is_default)).toEqual([false, true]);
    res = await call(server, "DELETE", `/account/payment-methods/${first.id}`);
    expect(res.status).toBe(200);
    expect((await call(server, "GET", `/account/payment-methods/${first.id}`)).status).toBe(404);
    expect((await call(server, "DELETE", `/account/payment-methods/${first.id}`)).status).toBe(404);
    expect((await call(server, "POST", `/account/payment-methods/${first.id}/make-default`)).status).toBe(404);
    expect((await call(server, "GET", "/account/payment-methods/abc")).status).toBe(404);
  });

  test("is_default: true makes the new card the default", async () => {
    await addMethod();
    await addMethod({ ...CARD, card_number: "5105105105105100" }, true);
    expect((await methods()).map((m) => m.is_default)).toEqual([false, true]);
  });

  test("at most six active payment methods; a deleted one frees a place", async () => {
    for (let i = 0; i < 6; i++) expect((await addMethod()).status).toBe(200);
    const res = await addMethod();
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("An account can have at most 6 payment methods; delete one first"));
    expect((await call(server, "POST", "/account/credit-card", { json: CARD })).status).toBe(400);
    const last = (await methods())[5]!;
    await call(server, "DELETE", `/account/payment-methods/${last.id}`);
    expect((await addMethod()).status).toBe(200);
  });

  test("body rules: type credit_card, is_default boolean, data with the card rules", async () => {
    let res = await call(server, "POST", "/account/payment-methods", { json: { type: "paypal", is_default: false, data: CARD } });
    expect(res.body).toEqual(errorBody("type must be credit_card", "type"));
    res = await call(server, "POST", "/account/payment-methods", { json: { type: "credit_card", data: CARD } });
    expect(res.body).toEqual(errorBody("is_default is required", "is_default"));
    res = await addMethod({ ...CARD, cvv: "1" });
    expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe("data.cvv");
    res = await addMethod({ ...CARD, expiry_year: 2020 });
    expect(res.body).toEqual(errorBody("The card has expired", "data.expiry_year"));
  });

  test("another account's methods are not found; add records payment_method_add", async () => {
    await addMethod();
    const id = (await methods())[0]!.id;
    const { account } = await server.domain.childAccounts.seedChild({});
    const kid = await server.domain.users.create({ username: "kid2", email: "k2@example.com", accountId: account.id });
    expect((await call(server, "GET", `/account/payment-methods/${id}`, { token: await mintFor(server, kid.id) })).status).toBe(404);
    await call(server, "POST", "/account/credit-card", { json: CARD });
    const events = await server.store.events.listSince(accountId, "2000-01-01T00:00:00");
    expect(events.map((e) => [e.action, e.entity?.type, e.entity?.id])).toEqual([
      ["payment_method_add", "payment_method", id],
      ["credit_card_updated", "payment_method", id + 1],
    ]);
  });
});

describe("/account/invoices", () => {
  const INVOICE = {
    date: "2025-02-01T00:00:00",
    label: "Invoice",
    subtotal: 10,
    tax: 1,
    tax_summary: [{ name: "VAT", tax: 1 }],
    total: 11,
    billing_source: "compute",
  } satisfies Omit<Invoice, "id">;
  const ITEM = {
    amount: 10,
    from: "2025-01-01T00:00:00",
    to: "2025-01-31T23:59:59",
    label: "Compute 2GB",
    quantity: 744,
    region: "us-east",
    tax: 1,
    total: 11,
    type: "hourly",
    unit_price: 0.0134,
  };

  test("list, view, items; other ids are 404", async () => {
    const id = await server.domain.billing.seedInvoice(accountId, INVOICE, [ITEM, { ...ITEM, label: "Backups", region: null }]);
    await server.domain.billing.seedInvoice(accountId, { ...INVOICE, label: "Second" });
    const list = await call(server, "GET", "/account/invoices");
    expect(list.status).toBe(200);
    const page = paginated(Invoice).parse(list.body);
    expect(page).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(page.data[0]).toEqual({ ...INVOICE, id });
    expect((await call(server, "GET", `/account/invoices/${id}`)).body).toEqual({ ...INVOICE, id });
    const items = await call(server, "GET", `/account/invoices/${id}/items?page_size=25`);
    expect(items.body).toMatchObject({ results: 2, data: [ITEM, { ...ITEM, label: "Backups", region: null }] });
    expect((await call(server, "GET", "/account/invoices/999")).status).toBe(404);
    expect((await call(server, "GET", "/account/invoices/999/items")).status).toBe(404);
    expect((await call(server, "GET", `/account/invoices/${id}/items?page=0`)).status).toBe(400);
  });

  test("restricted users need account_access", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    expect((await call(server, "GET", "/account/invoices", { token })).status).toBe(403);
    const grants = emptyGrants();
    grants.global.account_access = "read_only";
    await server.domain.users.setGrants(user.id, grants);
    expect((await call(server, "GET", "/account/invoices", { token })).status).toBe(200);
  });
});

describe("/account/availability", () => {
  test("default catalogue, seeded availability, unknown region 404, paging", async () => {
    let res = await call(server, "GET", "/account/availability");
    expect(res.status).toBe(200);
    expect((res.body as { results: number }).results).toBeGreaterThan(0);
    expect((await call(server, "GET", "/account/availability/us-east")).body).toMatchObject({ region: "us-east", unavailable: [] });
    await server.domain.notices.seedAvailability(accountId, [
      { region: "us-east", available: ["Computes"], unavailable: ["Kubernetes"] },
      { region: "eu-west", available: [], unavailable: ["Computes"] },
    ]);
    res = await call(server, "GET", "/account/availability?page_size=25");
    expect(res.body).toEqual({
      data: [
        { region: "eu-west", available: [], unavailable: ["Computes"] },
        { region: "us-east", available: ["Computes"], unavailable: ["Kubernetes"] },
      ],
      page: 1,
      pages: 1,
      results: 2,
    });
    expect((await call(server, "GET", "/account/availability/ap-south")).status).toBe(404);
    expect((await call(server, "GET", "/account/availability?page_size=10")).status).toBe(400);
  });
});

describe("/account/logins", () => {
  test("every user's logins, failed included, last 90 days; unrestricted only", async () => {
    const other = await newActor(server);
    const me = await bootstrapUserId(server);
    const old = await server.domain.logins.record({ userId: me, ip: "192.0.2.1" });
    server.clock.advance(91 * 24 * 3600 * 1000);
    const a = await server.domain.logins.record({ userId: me, ip: "192.0.2.2" });
    const b = await server.domain.logins.record({ userId: other.user.id, ip: "192.0.2.3", status: "failed" });
    const res = await call(server, "GET", "/account/logins");
    expect(res.status).toBe(200);
    expect((res.body as { data: Array<{ id: number }> }).data.map((l) => l.id)).toEqual([a.id, b.id]);
    expect((await call(server, "GET", `/account/logins/${b.id}`)).body).toMatchObject({ status: "failed", username: other.user.username });
    expect((await call(server, "GET", `/account/logins/${old.id}`)).status).toBe(404);

    const restricted = await newActor(server, { restricted: true });
    const grants = emptyGrants();
    grants.global.account_access = "read_write";
    await server.domain.users.setGrants(restricted.user.id, grants);
    expect((await call(server, "GET", "/account/logins", { token: restricted.token })).status).toBe(403);
    expect((await call(server, "GET", `/account/logins/${a.id}`, { token: restricted.token })).status).toBe(403);
  });
});

describe("/account/maintenance and /account/notifications", () => {
  const entity = (id: number) => ({ id, label: `compute-${id}`, type: "compute", url: `/v4/compute/instances/${id}` });

  test("maintenance: canceled items are not returned; restricted users see only entities they may view", async () => {
    await server.domain.notices.seedMaintenance(accountId, {
      entity: entity(1),
      reason: "Host upgrade",
      status: "pending",
      type: "reboot",
      when: "2025-03-10T00:00:00",
    });
    await server.domain.notices.seedMaintenance(accountId, {
      entity: entity(2),
      reason: "Host upgrade",
      status: "canceled",
      type: "reboot",
      when: "2025-03-10T00:00:00",
    });
    await server.domain.notices.seedMaintenance(accountId, {
      entity: entity(3),
      reason: "Migration",
      status: "started",
      type: "live_migration",
      when: "2025-03-11T00:00:00",
    });
    let res = await call(server, "GET", "/account/maintenance");
    expect(res.status).toBe(200);
    expect((res.body as { data: Array<{ entity: { id: number } }> }).data.map((m) => m.entity.id)).toEqual([1, 3]);

    const { user, token } = await newActor(server, { restricted: true });
    res = await call(server, "GET", "/account/maintenance", { token });
    expect(res.body).toMatchObject({ data: [], results: 0 });
    const grants = emptyGrants();
    grants.compute = [
      { id: 3, label: "compute-3", permissions: "read_only" },
      { id: 2, label: "compute-2", permissions: "read_write" },
    ];
    await server.domain.users.setGrants(user.id, grants);
    res = await call(server, "GET", "/account/maintenance", { token });
    expect((res.body as { data: Array<{ entity: { id: number } }> }).data.map((m) => m.entity.id)).toEqual([3]);
  });

  test("notifications: listed until resolved or past `until`", async () => {
    const n = {
      label: "Maintenance",
      message: "Scheduled",
      body: null,
      entity: entity(1),
      severity: "major",
      type: "maintenance",
      when: "2025-03-10T00:00:00",
      until: null,
    };
    const first = await server.domain.notices.seedNotification(accountId, n);
    await server.domain.notices.seedNotification(accountId, {
      ...n,
      label: "Promo",
      entity: null,
      severity: "minor",
      type: "promotion",
      until: "2025-03-02T00:00:00",
    });
    let res = await call(server, "GET", "/account/notifications");
    expect(res.status).toBe(200);
    expect((res.body as { data: Array<{ label: string }> }).data.map((x) => x.label)).toEqual(["Maintenance", "Promo"]);
    server.clock.advance(24 * 3600 * 1000);
    await server.domain.notices.resolveNotification(accountId, first);
    res = await call(server, "GET", "/account/notifications");
    expect(res.body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
    await expect(server.domain.notices.resolveNotification(accountId, first)).rejects.toThrow();
  });
});
