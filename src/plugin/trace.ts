/**
 * Marks for the stack bench (bench/stack.ts): when MGMT_PLUGIN_TRACE names a file, each plugin
 * process appends one JSON line per mark to it at exit (start, handshake line, each RPC with
 * its start and end, the provider loaded, peak RSS), on the epoch clock in milliseconds so the
 * marks of every start of a command line up with the engine's run. Off, a mark is one check.
 * Each bundle that imports this keeps its own buffer and writes it at exit.
 */
import { appendFileSync } from "node:fs";

const file = process.env.MGMT_PLUGIN_TRACE;
const marks: string[] = [];

/** Epoch milliseconds, sub-millisecond. */
export const now = (): number => performance.timeOrigin + performance.now();

export const tracing = (): boolean => file !== undefined && file !== "";

export function mark(event: string, fields: Record<string, unknown> = {}): void {
  if (!tracing()) return;
  if (marks.length === 0) process.on("exit", flush);
  marks.push(JSON.stringify({ pid: process.pid, event, at: now(), ...fields }));
}

function flush(): void {
  try {
    appendFileSync(file!, marks.splice(0).join("\n") + "\n");
  } catch {
    // A bench's file; the plugin's work does not depend on it.
  }
}
