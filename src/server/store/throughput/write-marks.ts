/**
 * Which tables this process's own statements may have changed, so that what was read from
 * them can be remembered between requests for exactly as long as nothing it came from changed
 * (the SQLite store's `tablesMark`; another process's commits are SQLite's `data_version`).
 *
 * A statement that writes (`insert into`, `update`, `delete from` a table) counts against that
 * table, and an update or delete also against every table it cascades into (read from the schema's
 * foreign keys; the schema has no triggers). A plain insert changes no other table's rows, and it is
 * the most common write (an event per change), so what was read from the tables hanging off it
 * stays remembered; an upsert (`on conflict`) may update, so it counts as one. Any other statement
 * that may write (DDL, a pragma, `insert or replace`, SQL this does not parse) counts against every
 * table. Erring that way only costs a re-read. (`begin immediate`, which SQLite counts as a write,
 * changes nothing by itself.)
 */
import type BetterSqlite3 from "better-sqlite3";

const WRITTEN_TABLE = /^\s*(insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?(?:[\s(]|$)/i;
const UPSERT = /\bon\s+conflict\b/i;
/** SQLite calls `begin immediate` a write (it takes the write lock), but it changes no row. */
const BEGIN = /^\s*begin\b/i;

/** For each table, the tables a change to it can change: itself and those its deletes cascade into. */
export function cascadesOf(db: BetterSqlite3.Database): Map<string, string[]> {
  const tables = db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[];
  const children = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  const foreignKeys = db.prepare('select "table" as parent, on_delete, on_update from pragma_foreign_key_list(?)');
  for (const child of tables) {
    for (const fk of foreignKeys.all(child) as Array<{ parent: string; on_delete: string; on_update: string }>) {
      if (fk.on_delete !== "NO ACTION" || fk.on_update !== "NO ACTION") children.get(fk.parent)?.add(child);
    }
  }
  const reach = (table: string, seen: Set<string>): Set<string> => {
    if (seen.has(table)) return seen;
    seen.add(table);
    for (const child of children.get(table) ?? []) reach(child, seen);
    return seen;
  };
  return new Map(tables.map((t) => [t, [...reach(t, new Set())]]));
}

export class WriteMarks {
  private readonly counts = new Map<string, number>();
  /** Statements that may have written anywhere. */
  private everywhere = 0;
  /** Tables noted since the last `settle`; `everywhere` too when `unsettledEverywhere`. */
  private readonly unsettled = new Set<string>();
  private unsettledEverywhere = false;
  /** Until the schema is known (migrations run), every write counts everywhere. */
  private cascades: ReadonlyMap<string, readonly string[]> = new Map();

  /** The schema's tables and cascades (`cascadesOf`), once migrations have run. */
  useSchema(cascades: ReadonlyMap<string, readonly string[]>): void {
    this.cascades = cascades;
  }

  /** A statement that may write is about to run. */
  note(sql: string): void {
    if (BEGIN.test(sql)) return;
    const [, verb = "", table = ""] = WRITTEN_TABLE.exec(sql) ?? [];
    const cascades = this.cascades.get(table);
    const plainInsert = /^insert/i.test(verb) && !UPSERT.test(sql);
    const reached = cascades !== undefined && plainInsert ? [table] : cascades;
    if (reached === undefined) {
      this.everywhere++;
      this.unsettledEverywhere = true;
      return;
    }
    for (const t of reached) {
      this.counts.set(t, (this.counts.get(t) ?? 0) + 1);
      this.unsettled.add(t);
    }
  }

  /**
   * A transaction ended (committed or rolled back): what was noted since the last one counts once
   * more. A reader on another connection (the SQLite store's read worker) may have read those
   * tables while it was open, under the marks its uncommitted writes had already moved; what it
   * read is remembered under marks that no longer come once the transaction ends.
   */
  settle(): void {
    if (this.unsettledEverywhere) this.everywhere++;
    for (const t of this.unsettled) this.counts.set(t, (this.counts.get(t) ?? 0) + 1);
    this.unsettled.clear();
    this.unsettledEverywhere = false;
  }

  /** Changes whenever a statement noted since may have written to one of `tables` (counts only grow). */
  mark(tables: readonly string[]): number {
    let sum = this.everywhere;
    for (const t of tables) sum += this.counts.get(t) ?? 0;
    return sum;
  }
}
