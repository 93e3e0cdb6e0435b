/**
 * A thread with its own read-only connection to the SQLite store's file, where the store's long
 * reads run (the paged lists and counts, see `./read-routes.ts`): better-sqlite3 runs a query
 * synchronously, so on the server's one connection a 50,000-event page held every other request
 * for as long as it took. WAL lets a reader on another connection read beside the writer: each
 * statement here is its own read transaction and sees every transaction committed before it
 * began, never one in progress.
 *
 * The thread starts with the first read sent to it (a server that lists nothing starts none) and
 * takes those sent meanwhile once its connection is open. Should it fail to start or stop, the
 * reads it held and every later one run on the caller's connection, as without it. Its code is a
 * string evaluated in the thread, so one file serves the TypeScript sources and the bundle alike;
 * the driver is required there by the path this process resolved.
 */
import { Worker } from "node:worker_threads";
import { STATEMENT_CACHE_SIZE } from "./throughput";

const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
let db;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
} catch (err) {
  parentPort.postMessage({ failed: String(err && err.message) });
  throw err;
}
// Statements kept prepared, by their text, as the main connection keeps its own.
const kept = new Map();
parentPort.on("message", ({ id, sql, parameters }) => {
  try {
    let entry = kept.get(sql);
    if (entry === undefined) {
      const stmt = db.prepare(sql).raw(true);
      entry = { stmt, columns: stmt.columns().map((c) => c.name) };
      if (kept.size >= ${STATEMENT_CACHE_SIZE}) kept.delete(kept.keys().next().value);
      kept.set(sql, entry);
    }
    parentPort.postMessage({ id, columns: entry.columns, rows: entry.stmt.all(parameters) });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
parentPort.postMessage({ ready: true });
`;

type Row = Record<string, unknown>;

interface Sent {
  resolve(rows: Row[]): void;
  reject(err: unknown): void;
  /** The read on the caller's connection, should the thread stop before answering. */
  inLoop(): Promise<Row[]>;
}

type Answer =
  { ready: true } | { failed: string } | { id: number; columns: string[]; rows: unknown[][] } | { id: number; error: { message: string; code: unknown } };

/** A blob arrives as a Uint8Array (the structured clone of a Buffer); the main connection gives Buffers. */
const value = (v: unknown): unknown => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);

function rowsOf(columns: string[], rows: unknown[][]): Row[] {
  return rows.map((values) => {
    const row: Row = {};
    for (let i = 0; i < values.length; i++) row[columns[i]!] = value(values[i]);
    return row;
  });
}

/** The error the main connection would have thrown: its message and SQLite's code (`writeRefusal` reads it). */
const sqliteError = ({ message, code }: { message: string; code: unknown }): Error => Object.assign(new Error(message), { name: "SqliteError", code });

export class ReadWorker {
  private worker: Worker | undefined;
  /** The thread could not start, or stopped: every read runs on the caller's connection. */
  private gone = false;
  private closed = false;
  private readonly sent = new Map<number, Sent>();
  private nextId = 0;

  /** `file`: the store's file (absolute); `driver`: better-sqlite3's resolved path. */
  constructor(
    private readonly file: string,
    private readonly driver: string,
  ) {}

  /** The rows of the read-only statement `sql`, read in the thread; `inLoop` reads them on the caller's connection instead. */
  read(sql: string, parameters: readonly unknown[], inLoop: () => Promise<Row[]>): Promise<Row[]> {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    const worker = this.gone ? undefined : (this.worker ?? this.start());
    if (worker === undefined) return inLoop();
    const id = this.nextId++;
    return new Promise<Row[]>((resolve, reject) => {
      // Held while it waits for an answer, so a process with nothing else to do still gets it.
      if (this.sent.size === 0) worker.ref();
      this.sent.set(id, { resolve, reject, inLoop });
      worker.postMessage({ id, sql, parameters });
    });
  }

  /** Stops the thread; reads still waiting for it fail. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
    this.settleAll((s) => s.reject(new Error("the store is closed")));
  }

  private start(): Worker | undefined {
    let worker: Worker;
    try {
      worker = new Worker(THREAD, { eval: true, workerData: { file: this.file, driver: this.driver } });
    } catch {
      this.gone = true;
      return undefined;
    }
    worker.unref();
    worker.on("message", (answer: Answer) => this.answered(answer));
    worker.on("error", () => this.stopped());
    worker.on("exit", () => this.stopped());
    this.worker = worker;
    return worker;
  }

  private answered(answer: Answer): void {
    if ("ready" in answer) return;
    if ("failed" in answer) return this.stopped();
    const sent = this.sent.get(answer.id);
    if (sent === undefined) return;
    this.sent.delete(answer.id);
    if (this.sent.size === 0) this.worker?.unref();
    if ("error" in answer) sent.reject(sqliteError(answer.error));
    else sent.resolve(rowsOf(answer.columns, answer.rows));
  }

  /** The thread failed or exited: what it held is read on the caller's connection, and so is everything after. */
  private stopped(): void {
    if (this.closed) return;
    this.gone = true;
    this.worker = undefined;
    this.settleAll((s) => s.inLoop().then(s.resolve, s.reject));
  }

  private settleAll(settle: (sent: Sent) => void): void {
    const held = [...this.sent.values()];
    this.sent.clear();
    for (const s of held) settle(s);
  }
}
