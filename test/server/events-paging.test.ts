/** @tier unit */
/**
 * The events list paged by the store (issue 44, item 2), on both stores: pages are the
 * newest-first slices of the window, `results` and `pages` count the window, and the 90-day
 * rule is the query's (events that age out leave the count and the pages); a restricted user's
 * visibility is the query's too, and agrees with the rule `visibleTo` states.
 */
import type { GrantsResponse } from "../../src/contract";
import { entities } from "../../src/server/domain/event-entities";
import { visibleTo } from "../../src/server/areas/events/service";
import { call, startTestServer, type TestServer } from "./helpers";
import { newActor } from "./actors";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ defaultFixtures: false });
});
afterAll(() => server.close());

interface EventPage {
  data: Array<{ id: number; entity: { label: string } | null }>;
  page: number;
  pages: number;
  results: number;
}

const page = async (n: number, size = 25): Promise<EventPage> => {
  const res = await call(server, "GET", `/account/events?page=${n}&page_size=${size}`);
  expect(res.status).toBe(200);
  return res.body as EventPage;
};

test("pages are newest-first slices of the window; events past 90 days leave them", async () => {
  const actor = await server.domain.auth.authenticate(server.token!);
  const before = (await page(1)).results;
  for (let i = 0; i < 40; i++) await server.domain.events.record({ actor, action: "tag_create", entity: entities.tag(`old-${i}`) });
  server.clock.advance(50 * 86_400_000);
  for (let i = 0; i < 30; i++) await server.domain.events.record({ actor, action: "tag_create", entity: entities.tag(`new-${i}`) });

  const all: number[] = [];
  const first = await page(1);
  expect(first.results).toBe(before + 70);
  for (let n = 1; n <= first.pages; n++) all.push(...(await page(n)).data.map((e) => e.id));
  expect(all).toHaveLength(before + 70);
  expect(all).toEqual([...all].sort((a, b) => b - a));
  expect((await page(1, 100)).data.slice(0, 30).map((e) => e.entity?.label)).toEqual(Array.from({ length: 30 }, (_, i) => `new-${29 - i}`));

  // 41 days later the first 40 are past the window: the count and the pages no longer hold them.
  server.clock.advance(41 * 86_400_000);
  const later = await page(1, 100);
  expect(later.results).toBe(30);
  expect(later.data.map((e) => e.entity?.label)).toEqual(Array.from({ length: 30 }, (_, i) => `new-${29 - i}`));
  // A page past the end answers the last page, as upstream does.
  const past = await page(3, 25);
  expect({ page: past.page, labels: past.data.map((e) => e.entity?.label) }).toEqual({
    page: 2,
    labels: Array.from({ length: 5 }, (_, i) => `new-${4 - i}`),
  });
});

test("a restricted user's pages hold exactly the events visibleTo lets them see, newest first, counted in SQL", async () => {
  const restricted = await newActor(server, { restricted: true });
  const accountId = restricted.user.account_id;
  const admin = await server.domain.auth.authenticate(server.token!);
  const types = ["compute", "volume", "account", "token", "tag", "domain"];
  for (let i = 0; i < 90; i++) {
    const type = types[i % types.length]!;
    const actor = i % 4 === 0 ? restricted : i % 4 === 1 ? admin : null;
    const entity = i % 7 === 0 ? null : { id: type === "tag" ? `t${i}` : i % 5, label: `${type}-${i}`, type, url: "" };
    await server.domain.events.record({ actor, accountId, action: "tag_create", entity });
  }
  const grants = (await call(server, "GET", "/profile/grants", { token: restricted.token })).body as GrantsResponse;
  const granted: GrantsResponse = {
    ...grants,
    global: { ...grants.global, account_access: "read_only" },
    compute: [1, 3].map((id) => ({ id, label: `c${id}`, permissions: "read_only" as const })),
    volume: [{ id: 2, label: "v2", permissions: null }],
    domain: [{ id: 4, label: "d4", permissions: "read_write" }],
  };
  await server.domain.users.setGrants(restricted.user.id, granted);

  const since = "2000-01-01T00:00:00";
  const expected = (await server.store.events.listSince(accountId, since))
    .filter((e) => visibleTo(e, restricted.user.id, granted))
    .map((e) => e.id)
    .reverse();
  expect(expected.length).toBeGreaterThan(10);
  const seen: number[] = [];
  let results: number | undefined;
  for (let n = 1; ; n++) {
    const res = await call(server, "GET", `/account/events?page=${n}&page_size=25`, { token: restricted.token });
    expect(res.status).toBe(200);
    const body = res.body as EventPage;
    results = body.results;
    seen.push(...body.data.map((e) => e.id));
    if (n >= body.pages) break;
  }
  expect(results).toBe(expected.length);
  expect(seen).toEqual(expected);
});
