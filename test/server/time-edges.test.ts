/** @tier unit */
/**
 * Truthful answers at the edges of time (issue 44, item 3), on both stores: the wire's
 * timestamps have four-digit years, so the admin clock refuses to move past 9999-12-31T23:59:59,
 * and a clock that runs past it while set just before makes writes refuse (400) before anything
 * is stored, instead of committing a row stamped `+010000-...` and answering 500; every list
 * keeps answering 200, and writes succeed again once the clock is reset.
 */
import { ed25519Key } from "./sshkey-gen";
import { call, startTestServer, type Reply, type TestServer } from "./helpers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const admin = (method: string, path: string, json?: unknown): Promise<Reply> =>
  call(server, method, `//__admin${path}`, { token: server.adminToken, ...(json === undefined ? {} : { json }) });

const labels = async (path: string): Promise<string[]> => {
  const res = await call(server, "GET", `${path}?page_size=500`);
  expect([path, res.status]).toEqual([path, 200]);
  return (res.body as { data: Array<{ label: string }> }).data.map((o) => o.label);
};

afterEach(async () => {
  await admin("DELETE", "/clock");
});

test("the admin clock refuses a time past 9999-12-31T23:59:59 (400) and accepts the last second", async () => {
  expect((await admin("PUT", "/clock", { now: "10000-01-01T00:00:00" })).status).toBe(400);
  expect((await admin("PUT", "/clock", { now: "9999-12-31T23:59:59" })).status).toBe(200);
  const past = await admin("POST", "/clock/advance", { seconds: 1 });
  expect(past.status).toBe(400);
  expect(JSON.stringify(past.body)).toContain("9999-12-31T23:59:59");
  expect(((await admin("GET", "/clock")).body as { now: string }).now).toBe("9999-12-31T23:59:59");
});

test("the year-9999 sequence: writes past the last second are refused with nothing stored, and every list answers 200", async () => {
  expect((await admin("PUT", "/clock", { now: "9999-12-31T23:59:58" })).status).toBe(200);
  // Just before the edge: writes work, and a token whose expiry would fall past it is refused.
  expect((await call(server, "POST", "/profile/sshkeys", { json: { label: "edge-ok", ssh_key: ed25519Key() } })).status).toBe(200);
  // The base clock runs on underneath the offset, past year 9999.
  server.clock.advance(5_000);
  const key = await call(server, "POST", "/profile/sshkeys", { json: { label: "edge-key", ssh_key: ed25519Key() } });
  expect(key.status).toBe(400);
  expect(JSON.stringify(key.body)).toContain("9999-12-31T23:59:59");
  const token = await call(server, "POST", "/profile/tokens", { json: { label: "edge-token", scopes: "*" } });
  expect(token.status).toBe(400);
  const tag = await call(server, "POST", "/tags", { json: { label: "edge-tag" } });
  expect(tag.status).toBeLessThan(500);

  expect(await labels("/profile/sshkeys")).not.toContain("edge-key");
  expect(await labels("/profile/tokens")).not.toContain("edge-token");
  await admin("DELETE", "/clock");
  expect(await labels("/profile/sshkeys")).toEqual(expect.arrayContaining(["edge-ok"]));
  expect(await labels("/profile/sshkeys")).not.toContain("edge-key");
  expect(await labels("/profile/tokens")).not.toContain("edge-token");
  expect((await call(server, "POST", "/profile/sshkeys", { json: { label: "after-reset", ssh_key: ed25519Key() } })).status).toBe(200);
});

test("a token expiry past the wire's last second is refused (400) and not stored", async () => {
  const res = await call(server, "POST", "/profile/tokens", { json: { label: "far-token", scopes: "*", expiry: "10000-01-01T00:00:00" } });
  expect(res.status).toBe(400);
  expect(await labels("/profile/tokens")).not.toContain("far-token");
});

test("past the last second, every read that compares stored times with now answers 200", async () => {
  expect((await admin("PUT", "/clock", { now: "9999-12-31T23:59:59" })).status).toBe(200);
  server.clock.advance(5_000);
  // Expiries are compared with the last second the wire can show, which every stored time precedes.
  for (const path of ["/profile/tokens", "/profile/apps", "/profile/devices", "/account/entity-transfers"]) {
    const res = await call(server, "GET", path);
    expect([path, res.status]).toEqual([path, 200]);
  }
});
