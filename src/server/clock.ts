/**
 * Time and randomness, injected so that expiry windows and generated values are testable
 * without sleeping: the domain never calls `new Date()` or `crypto` itself.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = "2025-01-01T00:00:00Z") {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** Source of secrets and random identifiers. */
export interface Secrets {
  /** A new bearer token: 64 lowercase hex characters, as upstream issues them. */
  token(): string;
  /** `bytes` random bytes as lowercase hex. */
  hex(bytes: number): string;
  uuid(): string;
}

export const cryptoSecrets: Secrets = {
  token: () => randomBytes(32).toString("hex"),
  hex: (bytes) => randomBytes(bytes).toString("hex"),
  uuid: () => randomUUID(),
};

/** Deterministic secrets for tests: a counter hashed with a seed. */
export function seededSecrets(seed = "mgmt"): Secrets {
  let n = 0;
  const next = (bytes: number): string => {
    let out = "";
    while (out.length < bytes * 2) out += createHash("sha256").update(`${seed}:${n++}`).digest("hex");
    return out.slice(0, bytes * 2);
  };
  return {
    token: () => next(32),
    hex: next,
    uuid: () => {
      const h = next(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}
