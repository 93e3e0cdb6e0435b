/**
 * Faults injected through the admin namespace: for requests whose route matches a pattern,
 * answer an error status, add latency, or drop the connection, each with a probability.
 * Patterns match the route as registered (`/v4/profile/tokens/:tokenId`) or the request's
 * path (`/v4/profile/tokens/7`); `*` stands for any characters (`/v4/profile/*`).
 */
import { z } from "zod";

export const FaultInput = z
  .object({
    /** Route pattern, e.g. `/v4/profile/tokens`, `/v4/profile/tokens/:tokenId`, `/v4/profile/*`, `*`. */
    route: z.string().min(1).max(512),
    /** Upper-case method; omitted: every method. */
    method: z.enum(["GET", "HEAD", "POST", "PUT", "DELETE"]).optional(),
    /** Answer this error status (with the contract's error body). */
    status: z.number().int().min(400).max(599).optional(),
    /** Reason in the error body (default: "Fault injected by the admin namespace"). */
    reason: z.string().min(1).max(512).optional(),
    /** Seconds for a `Retry-After` header on the error answer. */
    retry_after: z.number().int().min(0).max(86_400).optional(),
    /** Wait this long first (wall-clock milliseconds). */
    latency_ms: z.number().int().min(0).max(60_000).optional(),
    /** Close the connection without an answer. */
    drop: z.boolean().optional(),
    /** Chance that a matching request is affected (default 1). */
    probability: z.number().min(0).max(1).default(1),
    /** Stop after this many affected requests (default: until cleared). */
    times: z.number().int().min(1).optional(),
  })
  .refine((f) => f.status !== undefined || f.latency_ms !== undefined || f.drop === true, {
    message: "A fault needs status, latency_ms or drop",
  })
  .refine((f) => !(f.drop === true && f.status !== undefined), { path: ["drop"], message: "drop and status cannot be combined" });
export type FaultInput = z.output<typeof FaultInput>;

export interface Fault extends FaultInput {
  id: number;
  /** Requests it has affected so far. */
  hits: number;
}

export const DEFAULT_FAULT_REASON = "Fault injected by the admin namespace";

const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}/?$`,
  );

export class FaultTable {
  private faults: Array<Fault & { re: RegExp }> = [];
  private nextId = 1;

  constructor(private readonly random: () => number = Math.random) {}

  add(input: FaultInput): Fault {
    const fault = { ...input, id: this.nextId++, hits: 0 };
    this.faults.push({ ...fault, re: globToRegExp(input.route) });
    return fault;
  }

  list(): Fault[] {
    return this.faults.map(({ re: _re, ...f }) => ({ ...f }));
  }

  remove(id: number): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault that matches and fires for this request, counted as a hit. */
  pick(method: string, route: string | undefined, path: string): Fault | undefined {
    for (const f of this.faults) {
      if (f.method !== undefined && f.method !== method) continue;
      if (!(f.re.test(path) || (route !== undefined && f.re.test(route)))) continue;
      if (f.times !== undefined && f.hits >= f.times) continue;
      if (f.probability < 1 && !(this.random() < f.probability)) continue;
      f.hits += 1;
      const { re: _re, ...rest } = f;
      return rest;
    }
    return undefined;
  }
}
