/** @tier unit */
/**
 * Lists that grow with use, paged by the store (issue 44, item 2), on both stores: the account's
 * invoices and logins. Walking every page gives each item once, in id order; `results` counts
 * the collection; the login history's window is the query's (logins that age out leave the
 * count and the pages); another account's rows never appear.
 */
import type { Invoice } from "../../src/contract";
import { call, startTestServer, type TestServer } from "./helpers";
import { bootstrapUserId, newActor } from "./actors";

let server: TestServer;
let accountId: number;
beforeAll(async () => {
  server = await startTestServer({ defaultFixtures: false });
  accountId = (await server.domain.auth.authenticate(server.token!)).user.account_id;
});
afterAll(() => server.close());

const DAY = 86_400_000;

/** Every page of `path` at `size`, with the `results` the first answered. */
async function walk(path: string, size = 25): Promise<{ ids: number[]; results: number }> {
  const ids: number[] = [];
  let results = 0;
  for (let n = 1; ; n++) {
    const res = await call(server, "GET", `${path}?page=${n}&page_size=${size}`);
    expect(res.status).toBe(200);
    const body = res.body as { data: Array<{ id: number }>; pages: number; results: number };
    if (n === 1) results = body.results;
    ids.push(...body.data.map((x) => x.id));
    if (n >= body.pages) return { ids, results };
  }
}

const INVOICE = { date: "2025-02-01T00:00:00", label: "Invoice", subtotal: 10, tax: 1, tax_summary: [], total: 11, billing_source: "compute" } satisfies Omit<
  Invoice,
  "id"
>;

test("invoices: every page in id order, counted; one by id; another account's are not there", async () => {
  const other = await server.store.accounts.insert({ euuid: "OTHER-INV", active_since: "2025-01-01T00:00:00" });
  const mine: number[] = [];
  for (let i = 0; i < 60; i++) {
    mine.push(await server.domain.billing.seedInvoice(accountId, { ...INVOICE, label: `inv-${i}` }));
    if (i % 10 === 0) await server.domain.billing.seedInvoice(other.id, { ...INVOICE, label: `theirs-${i}` });
  }
  expect(await walk("/account/invoices")).toEqual({ ids: mine, results: 60 });
  expect((await call(server, "GET", `/account/invoices/${mine[42]}`)).body).toMatchObject({ id: mine[42], label: "inv-42" });
  // A page past the end answers the last page, as upstream does.
  const page = await call(server, "GET", "/account/invoices?page=4&page_size=25");
  expect(page.body).toMatchObject({ page: 3, pages: 3, results: 60 });
  expect((page.body as { data: { id: number }[] }).data.map((i) => i.id)).toEqual(mine.slice(50));
});

test("account logins: every user's, in id order, inside the window the query keeps", async () => {
  const me = await bootstrapUserId(server);
  const other = await newActor(server);
  const old: number[] = [];
  for (let i = 0; i < 30; i++) old.push((await server.domain.logins.record({ userId: i % 2 ? me : other.user.id, ip: "192.0.2.1" })).id);
  server.clock.advance(60 * DAY);
  const recent: number[] = [];
  for (let i = 0; i < 40; i++) recent.push((await server.domain.logins.record({ userId: i % 3 ? me : other.user.id, ip: "192.0.2.2" })).id);

  expect(await walk("/account/logins")).toEqual({ ids: [...old, ...recent], results: 70 });
  server.clock.advance(31 * DAY);
  expect(await walk("/account/logins")).toEqual({ ids: recent, results: 40 });
  expect((await call(server, "GET", `/account/logins/${old[3]}`)).status).toBe(404);
  expect((await call(server, "GET", `/account/logins/${recent[3]}`)).status).toBe(200);
});
