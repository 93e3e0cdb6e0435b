/** @tier unit */
/** The retry policy as a table: pure functions, no server. */
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  classifyError,
  decideRetry,
  isRetryable,
  parseRetryAfter,
  refusalNote,
  writeMayHaveActed,
  type FailureKind,
  type Outcome,
  type RetryPolicy,
} from "../../src/client/retry";

const IDEMPOTENT = ["GET", "HEAD", "PUT", "DELETE"] as const;
const UNSAFE = ["POST", "PATCH"] as const;

describe("isRetryable", () => {
  const statusTable: Array<[number, boolean, boolean]> = [
    // status, idempotent methods, POST/PATCH
    [429, true, true],
    [500, true, false],
    [502, true, false],
    [503, true, false],
    [504, true, false],
    [501, false, false],
    [505, false, false],
    [400, false, false],
    [401, false, false],
    [403, false, false],
    [404, false, false],
    [408, false, false],
    [409, false, false],
  ];
  test.each(statusTable)("status %i: idempotent %s, POST/PATCH %s", (status, idem, unsafe) => {
    for (const m of IDEMPOTENT) expect([m, isRetryable(m, { status })]).toEqual([m, idem]);
    for (const m of UNSAFE) expect([m, isRetryable(m, { status })]).toEqual([m, unsafe]);
  });

  const failureTable: Array<[FailureKind, boolean, boolean]> = [
    ["connect", true, true],
    ["network", true, false],
    ["timeout", true, false],
    ["aborted", false, false],
    ["fatal", false, false],
  ];
  test.each(failureTable)("failure %s: idempotent %s, POST/PATCH %s", (failure, idem, unsafe) => {
    for (const m of IDEMPOTENT) expect([m, isRetryable(m, { failure })]).toEqual([m, idem]);
    for (const m of UNSAFE) expect([m, isRetryable(m, { failure })]).toEqual([m, unsafe]);
  });

  test("method case does not matter", () => {
    expect(isRetryable("get", { status: 503 })).toBe(true);
    expect(isRetryable("post", { status: 503 })).toBe(false);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
  test.each<[string | string[] | undefined | null, number | undefined]>([
    ["3", 3000],
    ["0", 0],
    [" 120 ", 120_000],
    [["7", "9"], 7000],
    ["Wed, 21 Oct 2015 07:28:05 GMT", 5000],
    ["Wed, 21 Oct 2015 07:27:00 GMT", 0], // already past
    ["Sunday, 06-Nov-94 08:49:37 GMT", 0], // obsolete RFC 850 form, past
    ["soon", undefined],
    ["-1", undefined],
    ["1.5", undefined],
    ["", undefined],
    [undefined, undefined],
    [null, undefined],
  ])("%p -> %p ms", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("backoffDelay", () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 10, baseDelayMs: 500, maxDelayMs: 30_000 };

  test("doubles per retry, jittered within the upper half", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 0.5))).toEqual([375, 750, 1500, 3000]);
    const high = [1, 2, 3, 4].map((n) => backoffDelay(n, policy, () => 0.999999));
    expect(high).toEqual([500, 1000, 2000, 4000]);
  });

  test("is capped at maxDelayMs", () => {
    expect(backoffDelay(7, policy, () => 0.999999)).toBe(30_000); // 500 * 64 = 32 000 > cap
    expect(backoffDelay(50, policy, () => 0.999999)).toBe(30_000);
    expect(backoffDelay(50, policy, () => 0)).toBe(15_000);
  });
});

describe("decideRetry", () => {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 2 };
  const now = 1_000_000;
  const random = () => 0;
  const decide = (method: string, outcome: Outcome, attempts: number, retryAfter?: string) =>
    decideRetry({ method, outcome, attempts, retryAfter }, policy, now, random);

  test("defaults", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxRetries: Number.POSITIVE_INFINITY,
      maxElapsedMs: 300_000,
      maxConnectRetries: 2,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      maxRetryAfterMs: 120_000,
    });
  });

  test("by default the count is unbounded and time ends the retries: no retry starts 5 minutes after the first attempt", () => {
    const at = (attempts: number, elapsedMs: number, retryAfter?: string) =>
      decideRetry({ method: "GET", outcome: { status: 429 }, attempts, retryAfter, elapsedMs }, DEFAULT_RETRY_POLICY, now, random);
    expect(at(40, 200_000, "1")).toEqual({ retry: true, delayMs: 1000, fromRetryAfter: true });
    expect(at(40, 299_000, "1")).toEqual({ retry: true, delayMs: 1000, fromRetryAfter: true });
    expect(at(40, 299_001, "1")).toEqual({ retry: false, why: "out-of-time", retryAfterMs: 1000 });
    expect(at(3, 290_000, "30")).toEqual({ retry: false, why: "out-of-time", retryAfterMs: 30_000 });
    expect(at(3, 299_000)).toEqual({ retry: true, delayMs: 1000, fromRetryAfter: false });
    expect(at(3, 299_001)).toEqual({ retry: false, why: "out-of-time" });
  });

  test("a connection never established is retried maxConnectRetries times only; a lost one keeps the time budget", () => {
    const fail = (failure: "connect" | "network", attempts: number) =>
      decideRetry({ method: "GET", outcome: { failure }, attempts, elapsedMs: 1000 }, DEFAULT_RETRY_POLICY, now, random);
    expect(fail("connect", 1).retry).toBe(true);
    expect(fail("connect", 2).retry).toBe(true);
    expect(fail("connect", 3)).toEqual({ retry: false, why: "exhausted" });
    expect(fail("network", 3).retry).toBe(true);
    expect(fail("network", 30).retry).toBe(true);
  });

  test("retries until maxRetries retries were made", () => {
    expect(decide("GET", { status: 503 }, 1)).toEqual({ retry: true, delayMs: 250, fromRetryAfter: false });
    expect(decide("GET", { status: 503 }, 2)).toEqual({ retry: true, delayMs: 500, fromRetryAfter: false });
    expect(decide("GET", { status: 503 }, 3)).toEqual({ retry: false, why: "exhausted" });
  });

  test("not retryable wins over the budget", () => {
    expect(decide("POST", { status: 500 }, 1)).toEqual({ retry: false, why: "not-retryable" });
    expect(decide("GET", { status: 404 }, 1)).toEqual({ retry: false, why: "not-retryable" });
  });

  test("Retry-After is honoured exactly, even above the back-off cap", () => {
    expect(decide("POST", { status: 429 }, 1, "3")).toEqual({ retry: true, delayMs: 3000, fromRetryAfter: true });
    expect(decide("GET", { status: 429 }, 1, "45")).toEqual({ retry: true, delayMs: 45_000, fromRetryAfter: true });
    expect(decide("GET", { status: 503 }, 1, "0")).toEqual({ retry: true, delayMs: 0, fromRetryAfter: true });
  });

  test("a Retry-After beyond maxRetryAfterMs fails at once", () => {
    expect(decide("GET", { status: 429 }, 1, "121")).toEqual({ retry: false, why: "retry-after-too-long", retryAfterMs: 121_000 });
    expect(decide("GET", { status: 429 }, 1, "120")).toEqual({ retry: true, delayMs: 120_000, fromRetryAfter: true });
  });

  test("an unreadable Retry-After falls back to back-off", () => {
    expect(decide("GET", { status: 429 }, 1, "later")).toEqual({ retry: true, delayMs: 250, fromRetryAfter: false });
  });

  test("failures without a response use back-off", () => {
    expect(decide("POST", { failure: "connect" }, 1, "9")).toEqual({ retry: true, delayMs: 250, fromRetryAfter: false });
    expect(decide("POST", { failure: "timeout" }, 1)).toEqual({ retry: false, why: "not-retryable" });
  });

  test("maxRetries 0 never retries", () => {
    expect(decideRetry({ method: "GET", outcome: { status: 503 }, attempts: 1 }, { ...policy, maxRetries: 0 }, now, random)).toEqual({
      retry: false,
      why: "exhausted",
    });
  });
});

describe("classifyError", () => {
  const sys = (code: string, syscall?: string) => Object.assign(new Error(code), { code, syscall });
  test.each<[string, unknown, FailureKind]>([
    ["refused", sys("ECONNREFUSED", "connect"), "connect"],
    ["refused without syscall", sys("ECONNREFUSED"), "connect"],
    ["DNS try again", sys("EAI_AGAIN", "getaddrinfo"), "connect"],
    ["connect timeout", sys("UND_ERR_CONNECT_TIMEOUT"), "connect"],
    ["unreachable at connect", sys("EHOSTUNREACH", "connect"), "connect"],
    ["unreachable later", sys("EHOSTUNREACH", "write"), "network"],
    ["reset at connect", sys("ECONNRESET", "connect"), "connect"],
    ["reset", sys("ECONNRESET", "read"), "network"],
    ["pipe", sys("EPIPE", "write"), "network"],
    ["undici socket", sys("UND_ERR_SOCKET"), "network"],
    ["headers timeout", sys("UND_ERR_HEADERS_TIMEOUT"), "timeout"],
    ["body timeout", sys("UND_ERR_BODY_TIMEOUT"), "timeout"],
    ["aborted", sys("UND_ERR_ABORTED"), "aborted"],
    ["unknown host", sys("ENOTFOUND", "getaddrinfo"), "fatal"],
    ["tls", sys("CERT_HAS_EXPIRED"), "fatal"],
    ["closed client", sys("UND_ERR_CLOSED"), "fatal"],
    ["plain error", new Error("boom"), "fatal"],
    ["not an error", "boom", "fatal"],
    ["aggregate", new AggregateError([sys("ECONNREFUSED", "connect"), sys("ECONNREFUSED", "connect")]), "connect"],
    ["cause", new Error("wrapped", { cause: sys("ECONNRESET", "read") }), "network"],
  ])("%s", (_name, err, kind) => {
    expect(classifyError(err)).toBe(kind);
  });
});

describe("refusalNote: what the error says about why the client stopped", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 60_000, maxElapsedMs: 120_000 };
  const answer = { status: 503, attempts: 1, elapsedMs: 0, basePath: "/v4" };
  test.each<[string, Parameters<typeof refusalNote>[0], Partial<typeof answer>, ReturnType<typeof refusalNote>]>([
    [
      "a Retry-After longer than it waits",
      { retry: false, why: "retry-after-too-long", retryAfterMs: 90_500 },
      {},
      { retryAfterMs: 90_500, note: "server asked to retry after 91 s, longer than the 60 s this client waits" },
    ],
    [
      "the retry budget spent",
      { retry: false, why: "out-of-time", retryAfterMs: 30_000 },
      { attempts: 4, elapsedMs: 100_400 },
      { retryAfterMs: 30_000, note: "gave up after 4 attempts in 100 s; this client retries for at most 120 s" },
    ],
    ["the retries exhausted", { retry: false, why: "exhausted" }, { attempts: 5 }, { note: "gave up after 5 attempts" }],
    [
      "a first 404 under a root not ending in /v4",
      { retry: false, why: "not-retryable" },
      { status: 404, basePath: "" },
      { note: 'the API root usually ends in /v4, as `mgmt serve` prints it; this client\'s is "/"' },
    ],
    ["a first 404 under /v4beta", { retry: false, why: "not-retryable" }, { status: 404, basePath: "/v4beta" }, {}],
    ["a first refusal", { retry: false, why: "not-retryable" }, { status: 400 }, {}],
  ])("%s", (_what, decision, over, expected) => {
    expect(refusalNote(decision, { ...answer, ...over }, policy)).toEqual(expected);
  });
});

describe("writeMayHaveActed: a write the client finishes rather than cancel on a stop", () => {
  test.each<[Outcome, boolean]>([
    [{ status: 500 }, true],
    [{ status: 503 }, true],
    [{ status: 429 }, false],
    [{ status: 409 }, false],
    [{ failure: "network" }, true],
    [{ failure: "timeout" }, true],
    [{ failure: "connect" }, false],
  ])("%j → %s", (outcome, acted) => {
    expect(writeMayHaveActed(outcome)).toBe(acted);
  });
});
