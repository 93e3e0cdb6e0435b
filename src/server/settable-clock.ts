/**
 * The server's clock in production as in tests: a base clock (the system's, or a test's
 * `ManualClock`) plus an offset the admin namespace sets or advances. Setting it moves "now"
 * for every rule that reads the clock (expiry, OTP windows, "last 90 days", rate windows);
 * time keeps running from there at the base clock's pace.
 */
import type { Clock } from "./clock";

export class SettableClock implements Clock {
  private offsetMs = 0;

  constructor(readonly base: Clock) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  /** Makes "now" the given moment. */
  set(at: Date): void {
    this.offsetMs = at.getTime() - this.base.now().getTime();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Back to the base clock. */
  resetOffset(): void {
    this.offsetMs = 0;
  }

  get offset(): number {
    return this.offsetMs;
  }
}
