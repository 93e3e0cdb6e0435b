/** @tier unit */
/**
 * The events list answered again from memory (issue 44, item 2), on both stores: a page asked
 * twice is read once while nothing it shows can change, and each thing it depends on moves its
 * mark (`EventService.listMark`): a new event, the caller's read and seen marks, their grants,
 * and the clock's 90-day window, either way. Another process's writes move every store mark
 * alike, whichever tables it covers: remembered-sqlite's and postgres/remembered's tests.
 */
import type { GrantsResponse } from "../../src/contract";
import { Events } from "../../src/server/areas/events/store";
import { entities } from "../../src/server/domain/event-entities";
import { call, startTestServer, type TestServer } from "./helpers";
import { newActor } from "./actors";

let server: TestServer;
let admin: Awaited<ReturnType<TestServer["domain"]["auth"]["authenticate"]>>;
beforeEach(async () => {
  server = await startTestServer({ defaultFixtures: false });
  admin = await server.domain.auth.authenticate(server.token!);
});
afterEach(() => server.close());

interface EventPage {
  data: Array<{ id: number; read: boolean; seen: boolean; entity: { label: string } | null }>;
  results: number;
}

/** The first page as `token` sees it, and how many times the store was asked for a page meanwhile. */
async function firstPage(token = server.token!): Promise<{ page: EventPage; reads: number }> {
  const pageSince = jest.spyOn(Events.prototype, "pageSince");
  try {
    const res = await call(server, "GET", "/account/events?page_size=100", { token });
    expect(res.status).toBe(200);
    return { page: res.body as EventPage, reads: pageSince.mock.calls.length };
  } finally {
    pageSince.mockRestore();
  }
}

const record = (label: string) =>
  server.domain.events.record({ actor: admin, accountId: admin.user.account_id, action: "tag_create", entity: entities.tag(label) });

test("a page asked again while nothing changed is not read again, and is the same answer", async () => {
  await record("a");
  const first = await firstPage();
  expect(first.reads).toBe(1);
  // On Postgres the mark is the database's snapshot, which a commit in any database of the test
  // cluster moves (another test file's): asked until one answer came with no commit anywhere since.
  let again = await firstPage();
  for (let i = 0; i < 20 && again.reads > 0; i++) again = await firstPage();
  expect(again.reads).toBe(0);
  expect(again.page).toEqual(first.page);
});

test("a new event is listed at once", async () => {
  await record("a");
  await firstPage();
  await record("b");
  const { page, reads } = await firstPage();
  expect(reads).toBe(1);
  expect(page.data.map((e) => e.entity?.label)).toEqual(["b", "a"]);
});

test("marking read and seen show at once, for that user only", async () => {
  const other = await newActor(server);
  const event = await record("a");
  await firstPage();
  await firstPage(other.token);
  expect((await call(server, "POST", `/account/events/${event.id}/read`)).status).toBe(200);
  expect((await firstPage()).page.data[0]).toMatchObject({ id: event.id, read: true, seen: false });
  expect((await call(server, "POST", `/account/events/${event.id}/seen`)).status).toBe(200);
  expect((await firstPage()).page.data[0]).toMatchObject({ id: event.id, read: true, seen: true });
  expect((await firstPage(other.token)).page.data[0]).toMatchObject({ id: event.id, read: false, seen: false });
});

test("a restricted user's page follows their grants at once", async () => {
  const restricted = await newActor(server, { restricted: true });
  await server.domain.events.record({ actor: admin, action: "compute_create", entity: { id: 7, label: "web", type: "compute", url: "" } });
  expect((await firstPage(restricted.token)).page.results).toBe(0);
  expect((await firstPage()).page.results).toBe(1);
  const grants = (await call(server, "GET", "/profile/grants", { token: restricted.token })).body as GrantsResponse;
  await server.domain.users.setGrants(restricted.user.id, { ...grants, compute: [{ id: 7, label: "web", permissions: "read_only" }] });
  expect((await firstPage(restricted.token)).page.data.map((e) => e.entity?.label)).toEqual(["web"]);
  await server.domain.users.setGrants(restricted.user.id, grants);
  expect((await firstPage(restricted.token)).page.results).toBe(0);
});

test("the clock moving the window shows at once, forward and back", async () => {
  await record("old");
  server.clock.advance(60 * 86_400_000);
  await record("new");
  expect((await firstPage()).page.data.map((e) => e.entity?.label)).toEqual(["new", "old"]);
  server.clock.advance(31 * 86_400_000);
  expect((await firstPage()).page.data.map((e) => e.entity?.label)).toEqual(["new"]);
  server.clock.advance(-31 * 86_400_000);
  expect((await firstPage()).page.data.map((e) => e.entity?.label)).toEqual(["new", "old"]);
});
