/** @tier postgres */
/**
 * Two `mgmt serve` processes on one Postgres database serve one consistent account:
 * concurrent creates through both get unique ids and are listed by both; concurrent label
 * updates of one key leave one of the written values; a token made on one works on the
 * other; a revocation on one is seen by the other at once. The processes run a bundle of
 * the CLI bundled as the build does (../cli-bundle.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleCli } from "../cli-bundle";
import { ed25519Key } from "../sshkey-gen";
import { freshPostgresDb, type TestDb } from "../test-store";

const root = join(__dirname, "..", "..", "..");
let dir: string;
let bundle: string;
let testDb: TestDb;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-pg-cli-"));
  bundle = await bundleCli(dir);
  testDb = await freshPostgresDb();
}, 60_000);
afterAll(async () => {
  await testDb?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

interface Serve {
  child: ChildProcess;
  url: string;
  token: string;
  stop(): Promise<number | null>;
}

function serve(db: string): Promise<Serve> {
  const child = spawn(process.execPath, [bundle, "serve", "--port", "0", "--db", db, "--no-default-fixtures"], {
    env: { ...process.env, MGMT_SERVE_TOKEN: "", MGMT_DATABASE_URL: "", MGMT_DATA_DIR: dir, NODE_PATH: join(root, "node_modules") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      const { url, token } = JSON.parse(out.slice(0, nl)) as { url: string; token: string };
      resolve({
        child,
        url,
        token,
        stop: () => {
          child.kill("SIGTERM");
          return exit;
        },
      });
    });
    void exit.then((code) => reject(new Error(`serve exited ${code} before ready: ${err}`)));
  });
}

/** The fields of the answers this test reads. */
interface Answer {
  id: number;
  label: string;
  ssh_key: string;
  created: string;
  token: string;
  results: number;
  data: Array<{ id: number }>;
}

async function api(server: Serve, method: string, path: string, body?: unknown, token = server.token): Promise<{ status: number; body: Answer }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

test("two servers on one database serve one consistent account", async () => {
  // Started together on an empty database: one migrates while the other waits, one account.
  const [a, b] = await Promise.all([serve(testDb.db), serve(testDb.db)]);
  try {
    const profileA = await api(a, "GET", "/profile");
    const profileB = await api(b, "GET", "/profile", undefined, a.token);
    expect(profileA.status).toBe(200);
    expect(profileB).toEqual(profileA);

    // 50 creates through each server, all in flight at once.
    const creates = await Promise.all(
      Array.from({ length: 100 }, (_, i) => api(i % 2 === 0 ? a : b, "POST", "/profile/sshkeys", { label: `key-${i}`, ssh_key: ed25519Key() })),
    );
    expect(creates.map((c) => c.status)).toEqual(Array(100).fill(200));
    const ids = creates.map((c) => c.body.id);
    expect(new Set(ids).size).toBe(100);
    for (const server of [a, b]) {
      const list = await api(server, "GET", "/profile/sshkeys?page_size=500");
      expect(list.body.results).toBe(100);
      expect(list.body.data.map((k) => k.id)).toEqual([...ids].sort((x, y) => x - y));
    }

    // Concurrent label updates of one key through both: one of the written values, the rest intact.
    const target = creates[0]!.body;
    const labels = Array.from({ length: 30 }, (_, i) => `label-${i}`);
    const updates = await Promise.all(labels.map((label, i) => api(i % 2 === 0 ? a : b, "PUT", `/profile/sshkeys/${target.id}`, { label })));
    expect(updates.map((u) => u.status)).toEqual(Array(labels.length).fill(200));
    const readA = await api(a, "GET", `/profile/sshkeys/${target.id}`);
    const readB = await api(b, "GET", `/profile/sshkeys/${target.id}`);
    expect(readB.body).toEqual(readA.body);
    expect(labels).toContain(readA.body.label);
    expect(readA.body).toMatchObject({ id: target.id, ssh_key: target.ssh_key, created: target.created });

    // A token created on one server works on the other; revoked on the other, it stops at once on the first.
    const created = await api(a, "POST", "/profile/tokens", { label: "shared" });
    expect(created.status).toBe(200);
    const shared = created.body.token;
    expect((await api(b, "GET", "/profile/sshkeys", undefined, shared)).status).toBe(200);
    expect((await api(b, "DELETE", `/profile/tokens/${created.body.id}`)).status).toBe(200);
    expect((await api(a, "GET", "/profile/sshkeys", undefined, shared)).status).toBe(401);
    expect((await api(b, "GET", "/profile/sshkeys", undefined, shared)).status).toBe(401);
  } finally {
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
  }
}, 60_000);

test("a later start on the database prints the token kept under MGMT_DATA_DIR", async () => {
  const first = await serve(testDb.db);
  expect(await first.stop()).toBe(0);
  const second = await serve(testDb.db);
  expect(await second.stop()).toBe(0);
  expect(second.token).toBe(first.token);
  const kept = readdirSync(dir).filter((name) => /^postgres-[0-9a-f]{16}\.token$/.test(name));
  expect(kept).toHaveLength(1);
  expect(readFileSync(join(dir, kept[0]!), "utf8").trim()).toBe(first.token);
  expect(statSync(join(dir, kept[0]!)).mode & 0o777).toBe(0o600);
});
