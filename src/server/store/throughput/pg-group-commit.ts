/**
 * Group commit for the Postgres store: the transactions asked for while one is running share
 * one SERIALIZABLE transaction and one commit, on one connection, each in a savepoint of its
 * own (up to `GROUPS` such groups at once, each on its own connection). A transaction alone costs a begin and a commit besides its statements (in Postgres's
 * CPU and ours: a commit record, the locks and predicate locks released, a round trip); a
 * group pays them once. The savepoint statements and each transaction's held-back writes
 * (`LATER`, ./prepared.ts) go ahead of the next statement in its round trip
 * (./named-statements.ts), so a transaction in a group costs the round trips of its own
 * statements that answer something (an insert's id), and none for its end.
 *
 * What each transaction keeps, as when it runs alone (`alone`):
 * - Isolation: the transactions of a group run one after another, each to its end before the
 *   next starts; the group as a whole is serializable against every other transaction (the
 *   other group, another server's).
 * - Recency: a group is made of the transactions asked for before it begins, never joined once
 *   its snapshot is taken, so each sees every commit acknowledged before it was asked, by this
 *   server or another (a read right after a create finds the object).
 * - Atomicity: a transaction that fails on its own (a rule of the domain, a unique violation)
 *   is rolled back to its savepoint and its caller gets the error; its neighbours go on.
 * - Durability: a caller hears of success only once the group's commit has returned.
 * - When the group as a whole fails (a serialization failure, an error in a statement held
 *   back from a neighbour, a commit refused), nothing of it was committed, and each of its
 *   transactions is run again alone, with the outcome it would have had alone: none is
 *   answered with another's error, none is written twice. Only when the commit's answer is
 *   lost (the connection broke while it was sent), so that whether it committed is unknown,
 *   does each fail with that error, as a transaction alone would.
 */
import { CompiledQuery, type Kysely } from "kysely";
import { heldBackFailed } from "./deferred-begin";
import { LATER } from "./prepared";

type Work<T, DB> = (trx: Kysely<DB>) => Promise<T>;

interface Job<DB> {
  work: Work<unknown, DB>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * The most transactions in one group, and the groups open at once. A group runs its
 * transactions one after another, a round trip each, and answers them all at its commit, so
 * one long group kept the requests in step (all waiting on the commit, then all arriving
 * together) and the server idle for a third of the time; two groups of up to 8 overlap, one
 * running while the other's answers go out (POST on Postgres: 726 against 506 req/s for one
 * group of 8, and 574 against 484 for one of 32).
 */
export const MAX_GROUP = 8;
export const GROUPS = 2;

const SAVEPOINT = CompiledQuery.raw(`savepoint job${LATER}`);
const RELEASE = CompiledQuery.raw(`release savepoint job${LATER}`);
const ROLLBACK_TO = CompiledQuery.raw("rollback to savepoint job");

/** SQLSTATE classes of a statement's own failure: data exception, integrity constraint violation. */
const OWN_CLASSES = new Set(["22", "23"]);

/**
 * Whether `err`, thrown by a transaction of a group, is its own failure (it would fail alone
 * too, and rolling back to its savepoint undoes it): an error not from the database (a rule of
 * the domain), or a bad value or violated constraint in its own statement. Anything else (a
 * serialization failure, an error in what was held back from a neighbour) fails the group.
 */
export function isOwnFailure(err: unknown): boolean {
  if (heldBackFailed(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === undefined) return true;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && OWN_CLASSES.has(code.slice(0, 2));
}

/** Whether a failed commit certainly did not commit: the server answered it with an error. */
const refused = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
};

export class PostgresGroupCommit<DB = unknown> {
  private readonly queue: Array<Job<DB>> = [];
  /** Groups open now. */
  private running = 0;

  /**
   * `root`: the database the groups open their transactions on. `alone`: runs one transaction
   * on its own (with the store's retries of serialization failures). `mayPassAlone`: an error
   * that looks like a transaction's own but may not recur alone (a stale reserved id,
   * ./id-blocks.ts); it fails the group, so the transaction runs again alone.
   */
  constructor(
    private readonly root: Kysely<DB>,
    private readonly alone: <T>(work: Work<T, DB>) => Promise<T>,
    private readonly mayPassAlone: (err: unknown) => boolean = () => false,
  ) {}

  /** Runs `work` in the next group; resolves with its result once that group has committed. */
  run<T>(work: Work<T, DB>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown, DB>, resolve: resolve as (value: unknown) => void, reject });
      if (this.running < GROUPS) void this.group();
    });
  }

  private async group(): Promise<void> {
    this.running++;
    // The group is the transactions asked for before it begins: its snapshot is taken by its
    // first statement, so each of them sees every commit acknowledged before it was asked, here
    // or on another server. One asked later waits for the next group, which will.
    await new Promise((resolve) => setImmediate(resolve));
    const batch = this.queue.splice(0, MAX_GROUP);
    const done: Array<{ job: Job<DB>; value: unknown }> = [];
    /** The transaction running when the group failed, if any: it is run again alone too. */
    let current: Job<DB> | undefined;
    let committing = false;
    let failure: { err: unknown } | undefined;
    try {
      if (batch.length > 0)
        await this.root
          .transaction()
          .setIsolationLevel("serializable")
          .execute(async (trx) => {
            for (current = batch.shift(); current !== undefined; current = batch.shift()) {
              await trx.executeQuery(SAVEPOINT);
              let value: unknown;
              try {
                value = await current.work(trx);
              } catch (err) {
                if (!isOwnFailure(err) || this.mayPassAlone(err)) throw err;
                // Undone before its caller hears of it: should that fail, the group fails, and the
                // error it got is still its own (nothing of it is committed).
                const job = current;
                current = undefined;
                job.reject(err);
                await trx.executeQuery(ROLLBACK_TO);
                await trx.executeQuery(RELEASE);
                continue;
              }
              await trx.executeQuery(RELEASE);
              done.push({ job: current, value });
            }
            committing = true;
          });
    } catch (err) {
      failure = { err };
    } finally {
      this.running--;
      if (this.queue.length > 0 && this.running < GROUPS) void this.group();
    }
    if (failure === undefined) {
      for (const { job, value } of done) job.resolve(value);
      return;
    }
    // Those not reached (the group failed first, or no transaction could begin) were never run.
    const again = [...done.map((d) => d.job), ...(current === undefined ? [] : [current]), ...batch];
    if (committing && !refused(failure.err)) {
      // The commit was sent and its answer lost: it may have committed, so none is run again.
      for (const job of again) job.reject(failure.err);
      return;
    }
    for (const job of again) this.alone(job.work).then(job.resolve, job.reject);
  }
}
