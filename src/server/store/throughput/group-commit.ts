/**
 * Group commit for the SQLite store: the transactions asked for in one turn of the event loop
 * share one SQLite transaction and one commit. A commit is what a write costs most (the WAL
 * frames written and file locks taken, about 50 of a transaction's 65 µs; eight transactions
 * commit in 140 µs together against 540 µs apart), and under load the requests read in one
 * turn arrive together, so their commits can be one.
 *
 * What each transaction keeps:
 * - Isolation: the transactions of a batch run one after another, each to its end before the
 *   next starts, as they would one by one on SQLite's single connection.
 * - Atomicity: each runs inside a savepoint; one that throws is rolled back to it alone and
 *   its caller gets the error at once (nothing of it is written).
 * - Durability: a caller hears of success only once the shared commit has returned; if that
 *   commit fails, every transaction of the batch fails with it (none was acknowledged).
 *
 * A batch takes the transactions queued when it starts, waits one `setImmediate` for those of
 * the rest of the turn, runs those too and commits.
 */
import type { Kysely } from "kysely";

type Work<T, DB> = (trx: Kysely<DB>) => Promise<T>;

interface Job<DB> {
  work: Work<unknown, DB>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Runs one of the savepoint statements at once on the connection the batch holds (no job is
 * mid-query then): cheaper than a query through Kysely, twice per transaction.
 */
export type SavepointStep = (sql: "savepoint job" | "release job" | "rollback to job") => void;

/** `DB`: the tables as the transactions see them (the store gives none: its areas name theirs). */
export class GroupCommit<DB = unknown> {
  private readonly queue: Array<Job<DB>> = [];
  private running = false;

  constructor(
    private readonly root: Kysely<DB>,
    private readonly step: SavepointStep,
  ) {}

  /** Runs `work` in the next batch; resolves with its result once that batch has committed. */
  run<T>(work: Work<T, DB>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown, DB>, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.batch();
    });
  }

  private async batch(): Promise<void> {
    this.running = true;
    const done: Array<{ job: Job<DB>; value: unknown }> = [];
    let current: Job<DB> | undefined;
    let began = false;
    try {
      await this.root.transaction().execute(async (trx) => {
        began = true;
        for (let waited = false; ;) {
          current = this.queue.shift();
          if (current === undefined) {
            if (waited) return;
            waited = true;
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          this.step("savepoint job");
          let value: unknown;
          try {
            value = await current.work(trx);
          } catch (err) {
            // Its own error; nothing of it will be committed, whether undoing it here succeeds
            // or (the transaction gone) fails and takes the whole batch with it, below.
            current.reject(err);
            this.step("rollback to job");
            this.step("release job");
            continue;
          }
          this.step("release job");
          done.push({ job: current, value });
        }
      });
    } catch (err) {
      current?.reject(err);
      for (const { job } of done.splice(0)) job.reject(err);
      // The transaction failed before it took a job (its BEGIN: a read-only store refuses `begin immediate`): the
      // jobs waiting fail with it. Left queued, the next batch would begin, fail and retry without end, the event
      // loop never turning.
      if (!began) for (const job of this.queue.splice(0)) job.reject(err);
    } finally {
      this.running = false;
      if (this.queue.length > 0) void this.batch();
    }
    for (const { job, value } of done) job.resolve(value);
  }
}
