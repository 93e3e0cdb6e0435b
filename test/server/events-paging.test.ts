/**
 * The events list paged by the store (issue 44, item 2), on both stores: pages are the
 * newest-first slices of the window, `results` and `pages` count the window, and the 90-day
 * rule is the query's (events that age out leave the count and the pages).
 */
import { entities } from "../../src/server/areas/events/service";
import { call, startTestServer, type TestServer } from "./helpers";

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
  const actor = await server.domain.tokens.authenticate(server.token!);
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
  expect((await page(3, 25)).data).toEqual([]);
});
