/**
 * The store's throughput machinery, behind one door: what makes a request cheap without changing
 * what it does. The stores (../sqlite.ts, ../postgres.ts, ../kysely-store.ts and the schema's
 * ../migrations.ts, ../dump.ts, ../wipe.ts) and the areas' queries import from here only; the
 * files behind it are this folder's own (eslint.config.mjs), tested one by one in test/server/.
 *
 * - Queries compiled once (./prepared.ts), the hot paths' and the inserts' that wait for no answer.
 * - SQLite: statements kept per SQL text, rows read as arrays (./sqlite-statements.ts); one commit
 *   for the transactions of an event-loop turn (./group-commit.ts); which tables this process
 *   wrote, so reads can be remembered (./write-marks.ts).
 * - Postgres: statements named per connection (./named-statements.ts), the begin and held-back
 *   writes riding with the next statement (./deferred-begin.ts), one commit per group of
 *   transactions (./pg-group-commit.ts), ids reserved ahead in blocks (./id-blocks.ts), and change
 *   counters of the tables every request reads (./table-marks.ts).
 */
export { prepared, preparedInsert, preparedInsertLater, preparedInsertReserved } from "./prepared";
export { STATEMENT_CACHE_SIZE, fastStatements } from "./sqlite-statements";
export { GroupCommit } from "./group-commit";
export { WriteMarks, cascadesOf } from "./write-marks";
export { NamedStatements } from "./named-statements";
export { PostgresGroupCommit } from "./pg-group-commit";
export { IdBlocks } from "./id-blocks";
export { COUNTS_SQL, MARKED_TABLES, TABLE_MARKS, markOf, parseCounts, type TableMarksTables } from "./table-marks";
