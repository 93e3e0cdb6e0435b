/** @tier unit */
/**
 * Writes on SQLite share commits (see src/server/store/throughput/group-commit.ts): what each transaction
 * must still be. One that fails is undone alone while the rest of its batch commits, and a
 * write acknowledged to a client survives the server being killed (SIGKILL) right after, even
 * with many writes in flight and committed together. (Postgres commits each transaction on its
 * own connection, so this file is for the SQLite store only.)
 */
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleCli } from "./cli-bundle";
import { Kysely, SqliteDialect, sql } from "kysely";
import { GroupCommit } from "../../src/server/store/throughput/group-commit";
import { openSqliteStore } from "../../src/server/store/sqlite";
import type { SshKeyTables } from "../../src/server/areas/sshkeys/store";
import { repos, type Store } from "../../src/server/areas";
import { seedUser, sshKeyCount } from "./test-store";
import { spawnServe, writeUntilKilled } from "./kill-mid-load";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-durable-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("transactions asked for together", () => {
  let store: Store;
  let userId: number;
  beforeEach(async () => {
    store = await openSqliteStore(join(dir, "mgmt.sqlite"), repos);
    userId = (await seedUser(store)).id;
  });
  afterEach(() => store.close());

  const addKey = (tx: Store, label: string) => tx.sshKeys.insert({ user_id: userId, label, ssh_key: "ssh-ed25519 AAAA", created: "2025-01-01T00:00:00" });

  test("one that throws is undone alone; the others commit, in the order asked", async () => {
    const outcomes = await Promise.allSettled(
      ["a", "b", "bad", "c"].map((label) =>
        store.transaction(async (tx) => {
          await addKey(tx, label);
          if (label === "bad") throw new Error("refused");
          return (await sshKeyCount(tx, userId)) as number;
        }),
      ),
    );
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([1, 2, "refused", 3]);
    const { rows } = await store.sshKeys.list(userId, { limit: 10, offset: 0 });
    expect(rows.map((k) => k.label)).toEqual(["a", "b", "c"]);
  });

  test("a batch that cannot commit fails every transaction run in it and writes none; those not yet run go on in the next", async () => {
    const file = new BetterSqlite3(join(dir, "mgmt.sqlite"));
    const root = new Kysely<SshKeyTables>({ dialect: new SqliteDialect({ database: file }) });
    const commits = new GroupCommit(root, (step) => void file.prepare(step).run());
    try {
      const add = (label: string) => (trx: Kysely<SshKeyTables>) =>
        trx.insertInto("ssh_keys").values({ user_id: userId, label, ssh_key: "ssh-ed25519 AAAA", created: "2025-01-01T00:00:00" }).execute();
      const outcomes = await Promise.allSettled([
        commits.run(add("a")),
        // Ends the shared transaction under the batch: its savepoint, and the commit, then fail.
        commits.run(async (trx) => void (await sql`rollback`.execute(trx))),
        commits.run(add("b")),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
      expect(await root.selectFrom("ssh_keys").select("label").execute()).toEqual([{ label: "b" }]);
    } finally {
      await root.destroy();
    }
  });

  test("a transaction inside one runs in it", async () => {
    await store.transaction(async (tx) => {
      await addKey(tx, "outer");
      await store.transaction((inner) => addKey(inner, "inner"));
    });
    expect(await sshKeyCount(store, userId)).toBe(2);
  });
});

describe("a server killed with SIGKILL", () => {
  test("keeps every SSH key (and its event) it acknowledged", async () => {
    const bundle = await bundleCli(dir);
    const db = join(dir, "mgmt.sqlite");
    const { child, url, token, exited } = await spawnServe(bundle, ["--db", db]);

    const acknowledged = await writeUntilKilled(child, url, token, 150);
    await exited;
    expect(child.signalCode).toBe("SIGKILL");

    const file = new BetterSqlite3(db);
    try {
      expect(file.pragma("integrity_check", { simple: true })).toBe("ok");
      const keys = new Map((file.prepare("select id, label from ssh_keys").all() as Array<{ id: number; label: string }>).map((k) => [k.id, k.label]));
      const events = new Set(file.prepare("select entity_id from events where action = 'user_ssh_key_add'").pluck().all() as string[]);
      expect(acknowledged.size).toBeGreaterThanOrEqual(150);
      for (const [id, label] of acknowledged) {
        expect(keys.get(id)).toBe(label);
        expect(events.has(String(id))).toBe(true);
      }
    } finally {
      file.close();
    }
  }, 60_000);
});
