/** @tier unit */
/**
 * `page`/`page_size` bounds (25..500) hold for every list route, now and later: every GET route
 * in the OpenAPI document (so every registered route) without path parameters that answers
 * the paginated envelope must refuse an out-of-bounds page size, and a repeated one in the API's words.
 */
import { call, startTestServer, type TestServer } from "./helpers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("page bounds hold for every list route", () => {
  test("every GET route without path parameters that answers a page refuses page_size 24 and 501", async () => {
    const routes = (await call(server, "GET", "/openapi.json", { token: null })).body as { paths: Record<string, Record<string, unknown>> };
    let lists = 0;
    for (const [path, ops] of Object.entries(routes.paths)) {
      if (ops.get === undefined || path.includes("{")) continue;
      const ok = await call(server, "GET", path);
      const body = ok.body as Record<string, unknown> | undefined;
      if (ok.status !== 200 || body === undefined || !("pages" in body && "results" in body && "data" in body)) continue;
      lists += 1;
      expect(body.page).toBe(1);
      for (const size of ["24", "501", "x"]) {
        const res = await call(server, "GET", `${path}?page_size=${size}`);
        expect([path, size, res.status]).toEqual([path, size, 400]);
        expect((res.body as { errors: Array<{ field: string }> }).errors[0]!.field).toBe("page_size");
      }
      const twice = await call(server, "GET", `${path}?page_size=25&page_size=25`);
      expect([path, twice.status, twice.body]).toEqual([path, 400, { errors: [{ field: "page_size", reason: "page_size must be given only once" }] }]);
    }
    expect(lists).toBeGreaterThanOrEqual(5);
  });
});
