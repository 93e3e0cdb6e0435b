/** @tier postgres */
/**
 * On Postgres, what a server remembers between requests (a token's lookup, an answered page of
 * SSH keys) is kept under the marks each request reads first (`requestMarks`): the database
 * snapshot, and the change counters of the tables a token's lookup reads. A repeated GET sends
 * that one statement and nothing else; a write elsewhere leaves the lookup remembered; and a
 * commit by any server, or by any other client of the database, is seen by every server's very
 * next request.
 */
import pg from "pg";
import { MARKED_TABLES } from "../../../src/server/store/throughput/table-marks";
import { call, startTestServer, type TestServer } from "../helpers";
import { ed25519Key } from "../sshkey-gen";
import { freshPostgresDb, type TestDb } from "../test-store";

let testDb: TestDb;
let a: TestServer;
let b: TestServer;

beforeEach(async () => {
  testDb = await freshPostgresDb();
  a = await startTestServer({ db: testDb.db });
  b = await startTestServer({ db: testDb.db });
});
afterEach(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await testDb?.cleanup();
});

/** The statements this process's `pg` clients sent while `fn` ran. */
async function sentDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    sent.push(typeof first === "string" ? first : first.text);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  }
  return sent;
}

const listKeys = (server: TestServer, token: string) => call(server, "GET", "/profile/sshkeys", { token });

/** Asks twice, so that the second answer and the token's lookup are remembered. */
async function warm(server: TestServer, token: string): Promise<void> {
  for (let i = 0; i < 2; i++) expect((await listKeys(server, token)).status).toBe(200);
}

/**
 * A warmed GET and the statements it sent. Transaction ids belong to the whole cluster, so a commit
 * in another test's database moves the snapshot as well (and rightly costs a read of the page): the
 * GET is tried again until one ran with no commit anywhere since the warm-up. Remembering that does
 * not work fails every try.
 */
async function repeatedGet(server: TestServer, token: string): Promise<{ answer: Awaited<ReturnType<typeof listKeys>>; sent: string[] }> {
  let last: { answer: Awaited<ReturnType<typeof listKeys>>; sent: string[] } | undefined;
  for (let attempt = 0; attempt < 20 && (last === undefined || last.sent.length > 1); attempt++) {
    await warm(server, token);
    let answer: Awaited<ReturnType<typeof listKeys>> | undefined;
    const sent = await sentDuring(async () => (answer = await listKeys(server, token)));
    last = { answer: answer!, sent };
  }
  return last!;
}

test("a repeated GET sends one statement, the snapshot: the token and the page are remembered", async () => {
  const { answer, sent } = await repeatedGet(b, a.token!);
  expect(answer).toMatchObject({ status: 200, body: { results: 0 } });
  expect(sent).toEqual([expect.stringMatching(/pg_current_snapshot/)]);
});

test("a token revoked on one server is refused by another on its very next request", async () => {
  const created = await call(a, "POST", "/profile/tokens", { json: { label: "shared" } });
  expect(created.status).toBe(200);
  const { id, token } = created.body as { id: number; token: string };
  await warm(a, token);
  expect((await repeatedGet(b, token)).sent).toHaveLength(1);

  expect((await call(a, "DELETE", `/profile/tokens/${id}`)).status).toBe(200);
  expect((await listKeys(b, token)).status).toBe(401);
  expect((await listKeys(a, token)).status).toBe(401);
  // The servers' own token, remembered alike, still works.
  expect((await listKeys(b, a.token!)).status).toBe(200);
});

test("a child account canceled through one server's admin API: its proxy token is refused by the other at once", async () => {
  const { account } = await a.domain.childAccounts.seedChild({ euuid: "CHILD-ON-TWO" });
  const minted = await call(a, "POST", "/account/child-accounts/CHILD-ON-TWO/token");
  expect(minted.status).toBe(200);
  const { token } = minted.body as { token: string };
  // Remembered by b, and used there to write.
  await warm(b, token);
  expect((await call(b, "POST", "/profile/sshkeys", { token, json: { label: "proxy", ssh_key: ed25519Key() } })).status).toBe(200);

  const off = await call(a, "PUT", `//__admin/child-accounts/${account.id}/active`, { token: a.adminToken, json: { active: false } });
  expect(off.status).toBe(200);
  expect((await call(b, "POST", "/profile/sshkeys", { token, json: { label: "late", ssh_key: ed25519Key() } })).status).toBe(401);
  expect((await listKeys(b, token)).status).toBe(401);
  expect((await listKeys(a, token)).status).toBe(401);
  expect((await call(b, "POST", "/account/child-accounts/CHILD-ON-TWO/token")).status).toBe(404);
});

test("a key added through one server is on the other's very next page", async () => {
  await warm(b, a.token!);
  const added = await call(a, "POST", "/profile/sshkeys", { json: { label: "new", ssh_key: ed25519Key() } });
  expect(added.status).toBe(200);
  const page = await listKeys(b, a.token!);
  expect(page.body).toMatchObject({ results: 1, data: [{ id: (added.body as { id: number }).id, label: "new" }] });
});

test("a commit by another client of the database is seen by the next request", async () => {
  await warm(b, a.token!);
  const other = new pg.Client({ connectionString: testDb.db });
  await other.connect();
  try {
    await other.query("update tokens set revoked = '2025-03-01T12:00:00'");
  } finally {
    await other.end();
  }
  expect((await listKeys(b, a.token!)).status).toBe(401);
});

test("a request that started before a commit is answered as of its snapshot; the next one sees the commit", async () => {
  await warm(b, a.token!);
  // Taken now, as a request's first statement would: a write committed after it does not move it.
  const before = await b.store.requestMarks!();
  expect((await call(a, "POST", "/profile/sshkeys", { json: { label: "late", ssh_key: ed25519Key() } })).status).toBe(200);
  const after = await b.store.requestMarks!();
  const markIn = (run: (fn: () => void) => void) => {
    let mark: string | undefined;
    run(() => (mark = b.domain.sshKeys.listMark()));
    return mark;
  };
  expect(markIn(before)).toEqual(expect.any(String));
  expect(markIn(after)).toEqual(expect.any(String));
  expect(markIn(after)).not.toBe(markIn(before));
  expect((await listKeys(b, a.token!)).body).toMatchObject({ results: 1 });
});

test("a write to another table leaves the token's lookup remembered; the page is read again", async () => {
  await warm(b, a.token!);
  expect((await call(a, "POST", "/profile/sshkeys", { json: { label: "new", ssh_key: ed25519Key() } })).status).toBe(200);
  let page: Awaited<ReturnType<typeof listKeys>> | undefined;
  const sent = await sentDuring(async () => (page = await listKeys(b, a.token!)));
  expect(page!.body).toMatchObject({ results: 1 });
  expect(sent).toHaveLength(2);
  expect(sent[0]).toMatch(/pg_current_snapshot/);
  expect(sent[1]).toMatch(/ssh_keys/);
});

test("the change counters only grow: the admin reset moves them and keeps them", async () => {
  const counts = async () => {
    const client = new pg.Client({ connectionString: testDb.db });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; n: string }>("select name, n from table_marks order by name");
      return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
    } finally {
      await client.end();
    }
  };
  const before = await counts();
  expect(Object.keys(before).sort()).toEqual([...MARKED_TABLES].sort());
  await a.store.wipe();
  const after = await counts();
  for (const table of MARKED_TABLES) expect(after[table]).toBeGreaterThan(before[table]!);
  expect(Object.keys(await a.store.dump())).not.toContain("table_marks");
});

describe("the requests of one turn share one read of the marks", () => {
  const markIn = (run: (fn: () => void) => void) => {
    let mark: string | undefined;
    run(() => (mark = b.domain.sshKeys.listMark()));
    return mark;
  };

  test("asked in the same turn: one statement, the same marks", async () => {
    let runners: Array<(fn: () => void) => void> = [];
    const sent = await sentDuring(async () => (runners = await Promise.all([b.store.requestMarks!(), b.store.requestMarks!(), b.store.requestMarks!()])));
    expect(sent).toHaveLength(1);
    const marks = runners.map(markIn);
    expect(marks[0]).toEqual(expect.any(String));
    expect(new Set(marks).size).toBe(1);
  });

  test("asked once the read is sent: a read of its own, which sees a commit made in between", async () => {
    const first = b.store.requestMarks!();
    // The shared read goes out at the end of this turn.
    await new Promise((resolve) => setImmediate(resolve));
    const other = new pg.Client({ connectionString: testDb.db });
    await other.connect();
    try {
      await other.query("update tokens set label = 'moved'");
    } finally {
      await other.end();
    }
    const second = b.store.requestMarks!();
    expect(markIn(await second)).not.toBe(markIn(await first));
  });
});
