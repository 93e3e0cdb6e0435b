/**
 * Marks for the stack bench (bench/stack.ts): when MGMT_PLUGIN_TRACE names a file, each plugin
 * process appends one JSON line per mark to it at exit (start, handshake line, each RPC with
 * its start and end, the provider loaded, peak RSS), on the epoch clock in milliseconds so the
 * marks of every start of a command line up with the engine's run. Off, a mark is one check.
 */
import { appendFileSync, readFileSync } from "node:fs";

const file = process.env.MGMT_PLUGIN_TRACE;
/** One buffer per process, on the global object: several bundles hold a copy of this module, and a flush must write all their marks. */
const MARKS = Symbol.for("terraform-provider-mgmt.trace-marks");
const marks: string[] = ((globalThis as { [MARKS]?: string[] })[MARKS] ??= []);
let flushAtExit = false;

/**
 * When this process started, in epoch milliseconds. From process.uptime(), not the global
 * `performance`: its first use loads perf_hooks and node's eight performance modules, several ms
 * of CPU that a traced start (bench/plugin-startup.ts) would spend and an engine's start does not.
 */
export const timeOrigin = Date.now() - process.uptime() * 1000;

/** Epoch milliseconds, sub-millisecond. */
export const now = (): number => timeOrigin + process.uptime() * 1000;

export const tracing = (): boolean => file !== undefined && file !== "";

export function mark(event: string, fields: Record<string, unknown> = {}): void {
  if (!tracing()) return;
  if (!flushAtExit) process.on("exit", flushMarks);
  flushAtExit = true;
  marks.push(JSON.stringify({ pid: process.pid, event, at: now(), ...fields }));
}

/** Appends the marks so far to the file; at exit, and where a process outlives what it traces (shared-host.ts). */
export function flushMarks(): void {
  if (marks.length === 0) return;
  try {
    appendFileSync(file!, marks.splice(0).join("\n") + "\n");
  } catch {
    // A bench's file; the plugin's work does not depend on it.
  }
}

/**
 * The process's own peak RSS in KiB. getrusage's maxRSS is not it: the kernel carries the
 * spawning process's RSS across fork and exec into the child's maxRSS (an engine's Go runtime
 * spawns with the engine's whole address space, so a plugin started by a 150 MiB engine "peaks"
 * at 150 MiB before running any code). VmHWM in /proc/self/status is the high-water mark of this
 * process's own memory since its exec; `fallback` (maxRSS) where there is no /proc.
 */
export function peakRssKiB(fallback: number): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "latin1"));
    return hwm ? Number(hwm[1]) : fallback;
  } catch {
    return fallback;
  }
}

/** A traced process's start (at node's own start) and, at exit, its CPU time and peak RSS. */
export function traceStartAndExit(): void {
  if (!tracing()) return;
  // Registered before the first mark, so it runs before the marks are written at exit.
  process.on("exit", () => {
    const usage = process.resourceUsage();
    mark("exit", { maxRssKiB: peakRssKiB(usage.maxRSS), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 });
  });
  mark("start", { at: timeOrigin });
}
