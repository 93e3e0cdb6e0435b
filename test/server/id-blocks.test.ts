/** @tier unit */
/**
 * The Postgres store's blocks of reserved ids (src/server/store/throughput/id-blocks.ts), over stand-in
 * connections that answer chosen blocks: ids ascend within a process even when two blocks
 * come back out of order, and only a primary-key violation of a table it reserves for counts
 * as a stale id. test/server/postgres/reserved-ids.test.ts runs them against Postgres.
 */
import type { Kysely } from "kysely";
import { BLOCK, IdBlocks } from "../../src/server/store/throughput/id-blocks";

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** A connection whose every block read answers `next()`'s ids; counts its reads. */
function connection(next: () => Promise<number[]>): Kysely<unknown> & { reads: number } {
  const db = {
    reads: 0,
    executeQuery: async () => {
      db.reads++;
      return { rows: (await next()).map((id) => ({ id })) };
    },
  };
  return db as unknown as Kysely<unknown> & { reads: number };
}

test("ids ascend in the order asked for, even when a background block arrives after a later one", async () => {
  let answerRoot: (ids: number[]) => void = () => {};
  const root = connection(() => new Promise((resolve) => (answerRoot = resolve)));
  const blocks = [range(1, BLOCK), range(200, BLOCK)];
  const own = connection(async () => blocks.shift()!);
  const ids = new IdBlocks(root);

  const taken: number[] = [];
  // The first block is read on the caller's connection; running low starts one on the root.
  for (let i = 0; i < BLOCK; i++) taken.push(await ids.take("t", own));
  expect(root.reads).toBe(1);
  // The background block has not come: the next caller reads one itself, then the late one comes.
  taken.push(await ids.take("t", own));
  answerRoot(range(100, BLOCK));
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 1; i < BLOCK; i++) taken.push(await ids.take("t", own));

  expect(taken).toEqual([...range(1, BLOCK), ...range(200, BLOCK)]);
  expect(own.reads).toBe(2);
});

test("a block is taken from without waiting while ids are left", () => {
  const ids = new IdBlocks(connection(() => new Promise(() => {})));
  return (async () => {
    expect(
      await ids.take(
        "t",
        connection(async () => range(1, BLOCK)),
      ),
    ).toBe(1);
    // Numbers, not promises: no turn of the event loop per id.
    expect(
      ids.take(
        "t",
        connection(async () => []),
      ),
    ).toBe(2);
  })();
});

test("only a primary-key violation of a table it reserved for is a stale id, and it forgets every block", async () => {
  const ids = new IdBlocks(connection(() => new Promise(() => {})));
  const own = connection(async () => range(1, BLOCK));
  expect(await ids.take("t", own)).toBe(1);
  expect(ids.collided({ code: "23505", table: "t", constraint: "t_label_key" })).toBe(false);
  expect(ids.collided({ code: "23505", table: "other", constraint: "other_pkey" })).toBe(false);
  expect(ids.collided({ code: "23502", table: "t", constraint: "t_pkey" })).toBe(false);
  expect(ids.collided(new Error("a rule"))).toBe(false);
  expect(ids.take("t", own)).toBe(2);

  expect(ids.collided({ code: "23505", table: "t", constraint: "t_pkey" })).toBe(true);
  // Forgotten: the next id comes from a block read afresh (here the same stand-in block again).
  expect(await ids.take("t", own)).toBe(1);
  expect(own.reads).toBe(2);
});
