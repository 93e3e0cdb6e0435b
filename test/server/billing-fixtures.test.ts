/** @tier unit */
/** The account/billing fixture sections, the default billing fixtures and the billing admin endpoints. */
import { call, startTestServer, type Reply, type TestServer } from "./helpers";

const data = (res: Reply) => (res.body as { data: Array<Record<string, unknown>> }).data;

test("the default fixtures give a lived-in billing account", async () => {
  const server = await startTestServer({ defaultFixtures: true });
  try {
    expect((await call(server, "GET", "/account")).body).toMatchObject({
      company: "Example Widgets LLC",
      country: "US",
      credit_card: { last_four: 1111, expiry: "12/2030" },
    });
    expect(data(await call(server, "GET", "/account/invoices"))).toHaveLength(2);
    expect((await call(server, "GET", "/account/invoices/1/items")).body).toMatchObject({ results: 2 });
    expect(data(await call(server, "GET", "/account/availability")).map((r) => r.region)).toEqual(["eu-west", "us-east"]);
    expect(data(await call(server, "GET", "/account/maintenance"))).toHaveLength(1);
    expect(data(await call(server, "GET", "/account/notifications"))).toHaveLength(1);
    const children = data(await call(server, "GET", "/account/child-accounts"));
    expect(children).toMatchObject([{ euuid: "9B2C7E1A-5D3F-4E8B-A1C2-3D4E5F60718A", company: "Widgets Child Co", billing_source: "external" }]);
    const token = await call(server, "POST", "/account/child-accounts/9B2C7E1A-5D3F-4E8B-A1C2-3D4E5F60718A/token");
    expect(token.status).toBe(200);
    const profile = await call(server, "GET", "/profile", { token: (token.body as { token: string }).token });
    expect(profile.body).toMatchObject({ username: expect.stringMatching(/^Example Widgets_[0-9a-f]{16}$/) });
  } finally {
    await server.close();
  }
});

test("a fixtures document with the billing sections; errors name the path", async () => {
  const server = await startTestServer({
    fixtures: {
      version: 1,
      account: { company: "Fixture Co", balance: 42, card_declines: true },
      payment_methods: [
        { type: "paypal", email: "pay@example.com", paypal_id: "PP-1" },
        { type: "credit_card", last_four: "4242", expiry: "01/2031", is_default: true },
      ],
      notifications: [{ label: "Promo", message: "Hi", severity: "minor", type: "promotion", until: "+1d" }],
    },
  });
  try {
    expect((await call(server, "GET", "/account")).body).toMatchObject({ company: "Fixture Co", balance: 42, credit_card: { last_four: 4242 } });
    const methods = data(await call(server, "GET", "/account/payment-methods"));
    expect(methods.map((m) => [m.type, m.is_default])).toEqual([
      ["paypal", false],
      ["credit_card", true],
    ]);
    const cancel = await call(server, "POST", "/account/cancel", { json: {} });
    expect(cancel.status).toBe(409);
    server.clock.advance(2 * 86_400_000);
    expect(data(await call(server, "GET", "/account/notifications"))).toEqual([]);
  } finally {
    await server.close();
  }
  await expect(startTestServer({ fixtures: { version: 1, invoices: [{ label: "x" }] } })).rejects.toThrow(/invoices/);
  // A child account is reached by its euuid in a path: one no path can name is refused.
  for (const euuid of ["has space", "a/b", ""]) {
    await expect(startTestServer({ fixtures: { version: 1, child_accounts: [{ euuid }] } })).rejects.toThrow(
      /child_accounts\[0\]\.euuid: must be a child account euuid/,
    );
  }
});

describe("admin endpoints", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());
  const admin = (method: string, path: string, json?: unknown) =>
    call(server, method, `//__admin${path}`, { token: server.adminToken, ...(json === undefined ? {} : { json }) });

  test("card switch, seeds, child accounts; the admin credential only", async () => {
    expect((await call(server, "PUT", "//__admin/account/card", { json: { declines: true } })).status).toBe(401);
    expect((await admin("PUT", "/account", { company: "Admin Co", balance: 5 })).status).toBe(200);
    expect((await admin("POST", "/payment-methods", { type: "credit_card", last_four: "1234", expiry: "02/2031" })).status).toBe(200);
    expect((await admin("PUT", "/account/card", { declines: true })).body).toMatchObject({ card_declines: true });
    expect((await call(server, "POST", "/account/cancel", { json: {} })).status).toBe(409);
    expect((await admin("PUT", "/account/card", { declines: "yes" })).status).toBe(400);

    const child = await admin("POST", "/child-accounts", { euuid: "CHILD-1", company: "Kid" });
    expect(child.body).toMatchObject({ euuid: "CHILD-1", proxy_user: { username: expect.stringMatching(/^Admin Co_[0-9a-f]{16}$/) } });
    expect(data(await call(server, "GET", "/account/child-accounts"))).toHaveLength(1);
    expect((await admin("PUT", `/child-accounts/${(child.body as { account_id: number }).account_id}/active`, { active: false })).status).toBe(200);
    expect(data(await call(server, "GET", "/account/child-accounts"))).toHaveLength(0);

    const inv = await admin("POST", "/invoices", { date: "-1d", label: "Invoice", subtotal: 1, tax: 0, total: 1 });
    expect((await call(server, "GET", `/account/invoices/${(inv.body as { id: number }).id}`)).body).toMatchObject({ date: "2025-02-28T12:00:00" });
    expect((await admin("PUT", "/availability", [{ region: "x-1", available: [], unavailable: ["Computes"] }])).status).toBe(200);
    expect(data(await call(server, "GET", "/account/availability"))).toEqual([{ region: "x-1", available: [], unavailable: ["Computes"] }]);
    await admin("POST", "/maintenance", {
      entity: { id: 1, label: "a", type: "compute", url: "/v4/compute/instances/1" },
      reason: "r",
      status: "pending",
      type: "reboot",
      when: "+1d",
    });
    expect(data(await call(server, "GET", "/account/maintenance"))).toHaveLength(1);
    const n = await admin("POST", "/notifications", { label: "l", message: "m", severity: "minor", type: "promotion" });
    expect(data(await call(server, "GET", "/account/notifications"))).toHaveLength(1);
    expect((await admin("DELETE", `/notifications/${(n.body as { id: number }).id}`)).status).toBe(200);
    expect(data(await call(server, "GET", "/account/notifications"))).toHaveLength(0);
    expect((await admin("DELETE", `/notifications/${(n.body as { id: number }).id}`)).status).toBe(404);
    expect((await admin("PUT", "/account?account_id=999", {})).status).toBe(404);
  });
});
