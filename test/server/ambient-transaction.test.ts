/** @tier unit */
/**
 * Inside a transaction, the outer store answers from that transaction: domain code that reaches
 * for `deps.store` mid-transaction neither deadlocks SQLite's single connection nor escapes
 * the transaction on Postgres.
 */
import { startTestServer, type TestServer } from "./helpers";
import { sshKeyCount } from "./test-store";

describe("the store inside a transaction", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("serves outer-store reads and writes from the open transaction, and rolls them back with it", async () => {
    const { store } = server;
    const userId = (await store.users.first())!.id;
    const before = await sshKeyCount(store, userId);
    await expect(
      store.transaction(async (tx) => {
        await tx.sshKeys.insert({ user_id: userId, label: "inside", ssh_key: "ssh-ed25519 AAAA", created: "2025-01-01T00:00:00" });
        // The outer store sees the transaction's own uncommitted row instead of waiting for it.
        expect(await sshKeyCount(store, userId)).toBe(before + 1);
        await store.sshKeys.insert({ user_id: userId, label: "outer handle", ssh_key: "ssh-ed25519 AAAA", created: "2025-01-01T00:00:00" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await sshKeyCount(store, userId)).toBe(before);
  });
});
