/** @tier unit */
/**
 * The exchange's phases one by one, against a scripted attempt function instead of a server: what each
 * attempt was sent with (the signal that may abandon it), what each outcome leads to, and what a stop
 * does at each moment. The same rules over real HTTP are in retries.test.ts and stop.test.ts.
 */
import { AttemptFailure, type RawResponse, type WireRequest } from "../../src/client/attempt";
import { ApiError, NetworkError } from "../../src/client/errors";
import { Exchange, type ExchangeCall, type ExchangeContext } from "../../src/client/exchange";
import type { Credentials, Method, RetryEvent } from "../../src/client/call";
import { DEFAULT_RETRY_POLICY } from "../../src/client/retry";

/** One scripted attempt: its answer, or a failure; may act first (a stop arriving while it is on the server). */
type Step = RawResponse | AttemptFailure | (() => RawResponse | AttemptFailure);

const answer = (
  status: number,
  headers: Record<string, string> = {},
  json: unknown = status < 300 ? {} : { errors: [{ reason: `status ${status}` }] },
): RawResponse => {
  const text = JSON.stringify(json);
  return { status, headers: { "content-type": "application/json", ...headers }, bytes: Buffer.from(text), text };
};
const failed = (kind: AttemptFailure["kind"], code?: string) =>
  new AttemptFailure(kind, code === undefined ? undefined : Object.assign(new Error(code), { code }));

interface Sent {
  readonly request: WireRequest;
  readonly signal: AbortSignal | undefined;
  /** Whether the stop had come when the attempt went out. */
  readonly afterStop: boolean;
}

let stop: AbortController;
let sent: Sent[];
let delays: number[];
let events: RetryEvent[];
let rootChecks: Array<AbortSignal | null>;

beforeEach(() => {
  stop = new AbortController();
  sent = [];
  delays = [];
  events = [];
  rootChecks = [];
});

const stopNow = () => stop.abort(new Error("the engine asked the provider to stop"));
/** `step`, after the stop came: the request is on the server when the engine asks to stop. */
const stopThen = (step: RawResponse | AttemptFailure) => () => (stopNow(), step);

function context(steps: Step[], extra: Partial<ExchangeContext> = {}): ExchangeContext {
  return {
    origin: "http://127.0.0.1:8080",
    basePath: "/v4",
    timeoutMs: 1000,
    policy: { ...DEFAULT_RETRY_POLICY, maxElapsedMs: 60_000 },
    token: "tok",
    signal: stop.signal,
    send: async (request, signal) => {
      sent.push({ request: { ...request, headers: { ...request.headers } }, signal, afterStop: stop.signal.aborted });
      const step = steps.shift();
      if (step === undefined) throw new Error("unscripted attempt");
      const outcome = typeof step === "function" ? step() : step;
      if (outcome instanceof AttemptFailure) throw outcome;
      return outcome;
    },
    sleep: async (ms) => {
      delays.push(ms);
    },
    now: () => 0,
    random: () => 0,
    onRetry: (e) => events.push(e),
    onAttempt: undefined,
    confirmRoot: async (signal) => {
      rootChecks.push(signal);
    },
    notTheApi: (err) => new Error(`not the API: ${err.status}`),
    ...extra,
  };
}

function run(method: Method, steps: Step[], call: Partial<ExchangeCall> = {}, extra: Partial<ExchangeContext> = {}): Promise<RawResponse> {
  const c: ExchangeCall = { operation: "op", method, path: "/things/1", body: method === "GET" ? undefined : "{}", headers: {}, notFound: "answer", ...call };
  return new Exchange(context(steps, extra), c).run();
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error("the call resolved; it should have failed");
    },
    (e: unknown) => e,
  );

describe("send: what a stop cancels", () => {
  test("a call stopped before it is sent sends nothing: aborted after 0 attempts", async () => {
    stopNow();
    const err = (await failure(run("POST", [answer(200)]))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("aborted");
    expect(err.attempts).toBe(0);
    expect(sent).toHaveLength(0);
  });

  test("a stop while the token is fetched: nothing is sent", async () => {
    const token: Credentials = { current: async () => (stopNow(), "tok"), refresh: async () => false };
    const err = (await failure(run("PUT", [answer(200)], {}, { token }))) as NetworkError;
    expect(err.kind).toBe("aborted");
    expect(sent).toHaveLength(0);
  });

  test("a read goes out with the stop, so it may be abandoned in flight; a write without it", async () => {
    await run("GET", [answer(200)]);
    await run("DELETE", [answer(200)]);
    expect(sent.map((s) => s.signal)).toEqual([stop.signal, undefined]);
  });

  test("the call's own signal replaces the client's; `null` lets nothing cancel it", async () => {
    const own = new AbortController();
    await run("GET", [answer(200)], { signal: own.signal });
    stopNow();
    await expect(run("GET", [answer(200)], { signal: null })).resolves.toMatchObject({ status: 200 });
    expect(sent.map((s) => s.signal)).toEqual([own.signal, undefined]);
  });

  test("the bearer goes under the root's path with every attempt; an empty token sends none", async () => {
    await run("GET", [answer(200)]);
    await run("GET", [answer(200)], {}, { token: "" });
    expect(sent.map((s) => [s.request.path, s.request.headers.authorization])).toEqual([
      ["/v4/things/1", "Bearer tok"],
      ["/v4/things/1", undefined],
    ]);
  });
});

describe("classify: what an outcome leads to", () => {
  const rotating = (): Credentials & { rejected: string[] } => {
    let n = 1;
    const rejected: string[] = [];
    return { rejected, current: async () => `tok-${n}`, refresh: async (t) => (rejected.push(t), n++, true) };
  };

  test("a 401 to renewable credentials is repeated at once with the fresh token, once: a second 401 is the answer", async () => {
    const token = rotating();
    const err = (await failure(run("POST", [answer(401), answer(401), answer(200)], {}, { token }))) as ApiError;
    expect(err.status).toBe(401);
    expect(token.rejected).toEqual(["tok-1"]);
    expect(sent.map((s) => s.request.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
    expect(delays).toEqual([]);
  });

  test("a retryable answer is retried after the policy's delay; one not retryable is the error, with its attempts", async () => {
    await expect(run("GET", [answer(503), answer(200)])).resolves.toMatchObject({ status: 200 });
    expect(delays).toEqual([250]);
    const err = (await failure(run("POST", [answer(503)]))) as ApiError;
    expect([err.status, err.attempts]).toEqual([503, 1]);
  });

  test("no answer: a refused connection is retried and then says what to check; a timeout says how long it waited", async () => {
    const refused = (await failure(
      run("GET", [failed("connect", "ECONNREFUSED"), failed("connect", "ECONNREFUSED"), failed("connect", "ECONNREFUSED")]),
    )) as NetworkError;
    expect([refused.kind, refused.attempts]).toEqual(["connect", 3]);
    expect(refused.message).toContain("nothing answers at http://127.0.0.1:8080/v4; check the API URL, or start the local API");
    expect(events.map((e) => e.reason)).toEqual(["ECONNREFUSED", "ECONNREFUSED"]);
    const timedOut = (await failure(run("POST", [failed("timeout")]))) as NetworkError;
    expect(timedOut.message).toContain("no complete answer within 1000 ms");
  });
});

describe("finish a write: a write the API may have acted on is not abandoned", () => {
  test.each([
    ["a 503", answer(503)],
    ["a lost connection", failed("network", "ECONNRESET")],
    ["a timeout", failed("timeout")],
  ])("after %s, a stop during the wait repeats it once at once, and the repeat's answer is the result", async (_what, first) => {
    const stopping = context([]).sleep;
    const res = await run("PUT", [first, answer(200)], {}, { sleep: async (ms, signal) => (stopNow(), stopping(ms, signal)) });
    expect(res.status).toBe(200);
    expect(sent.map((s) => s.afterStop)).toEqual([false, true]);
  });

  test("the repeat that leaves it unknown too is the error: no third attempt", async () => {
    const err = (await failure(run("PUT", [stopThen(answer(503)), answer(503), answer(200)]))) as ApiError;
    expect(err.status).toBe(503);
    expect(err.message).toContain("stopped after 2 attempts");
    expect(sent).toHaveLength(2);
    expect(delays).toEqual([]);
  });

  test.each([
    ["a 429", answer(429)],
    ["a connection never made", failed("connect", "ECONNREFUSED")],
  ])("after %s, which left nothing behind, a stop during the wait cancels it", async (_what, first) => {
    const err = (await failure(run("POST", [stopThen(first), answer(200)]))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect([err.kind, err.attempts]).toEqual(["aborted", 1]);
    expect(sent).toHaveLength(1);
  });

  test("a read is never finished: a stop during its wait cancels it", async () => {
    const err = (await failure(run("GET", [stopThen(answer(503)), answer(200)]))) as NetworkError;
    expect(err.kind).toBe("aborted");
    expect(sent).toHaveLength(1);
  });

  test("a write that is not safe to repeat is not repeated to learn its outcome: its 503 is the error", async () => {
    const err = (await failure(run("POST", [stopThen(answer(503)), answer(200)]))) as ApiError;
    expect([err.status, err.attempts]).toEqual([503, 1]);
  });
});

describe("wait: back-off and Retry-After, within the budget", () => {
  test("each retry is reported, then waited; Retry-After is honoured over the back-off", async () => {
    await run("GET", [answer(503), answer(429, { "retry-after": "7" }), answer(200)]);
    expect(events).toEqual([
      { operation: "op", method: "GET", path: "/things/1", attempt: 1, delayMs: 250, reason: "503" },
      { operation: "op", method: "GET", path: "/things/1", attempt: 2, delayMs: 7000, reason: "429" },
    ]);
    expect(delays).toEqual([250, 7000]);
  });

  test("simulated waits count into the time budget: the retry that would start past it is not made", async () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxElapsedMs: 1000, baseDelayMs: 400 };
    const err = (await failure(run("GET", [answer(503), answer(503), answer(503), answer(200)], {}, { policy }))) as ApiError;
    expect(delays).toEqual([200, 400]);
    expect(err.message).toContain("gave up after 3 attempts");
  });

  test("a stop that came before the wait: no report, no sleep", async () => {
    await failure(run("GET", [stopThen(answer(503))]));
    expect(events).toEqual([]);
    expect(delays).toEqual([]);
  });

  test("a sleep failing for another reason than the stop is the call's error", async () => {
    const broken = new Error("timer broke");
    await expect(run("GET", [answer(503)], {}, { sleep: async () => Promise.reject(broken) })).rejects.toBe(broken);
  });
});

describe("refuse: a 404 means gone only from the API", () => {
  const notFound = answer(404);

  test("`confirm-root`: the root is checked with the call's stop, then the 404 is the error", async () => {
    const err = (await failure(run("GET", [notFound], { notFound: "confirm-root" }))) as ApiError;
    expect(err.status).toBe(404);
    expect(rootChecks).toEqual([stop.signal]);
  });

  test("a delete being finished learns from the repeat's 404 that it went through: its root check is not cancelled either", async () => {
    const err = (await failure(run("DELETE", [stopThen(failed("network", "ECONNRESET")), notFound], { notFound: "confirm-root" }))) as ApiError;
    expect(err.status).toBe(404);
    expect(rootChecks).toEqual([null]);
  });

  test("a root that does not answer as the API's is the error instead", async () => {
    const root = new Error("not the API's root");
    const err = await failure(run("GET", [notFound], { notFound: "confirm-root" }, { confirmRoot: async () => Promise.reject(root) }));
    expect(err).toBe(root);
  });

  test("`not-the-api`: the probe's own path answering 404 says the URL is not the API's", async () => {
    await expect(run("GET", [notFound], { notFound: "not-the-api" })).rejects.toThrow("not the API: 404");
    expect(rootChecks).toEqual([]);
  });

  test("`answer`: the 404 is the error as it is, with no root check", async () => {
    await expect(run("GET", [notFound])).rejects.toBeInstanceOf(ApiError);
    expect(rootChecks).toEqual([]);
  });
});
