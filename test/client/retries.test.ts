/** @tier unit */
/**
 * Retries over real HTTP. The sleep is injected and records the delays asked for, so nothing
 * here waits for a back-off and nothing asserts on wall-clock time.
 */
import { ApiError, MgmtClient, NetworkError, isTimeout, type MgmtClientOptions, type RetryEvent } from "../../src/client";
import { ScriptedServer, recordingSleep, type Reply } from "./scripted-server";
import { closedPort } from "../../testkit/closed-port";
import { PROFILE } from "./fixtures";

const TOKEN = "tok-retry-7d1e5c3b9a";
const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ9w0vL3ePqBvIoGgQ1d0Ck4i2H3mVdQv2zJk0eY4kOs";
const KEY = { id: 3, label: "k", ssh_key: ED25519, created: "2024-05-01T10:00:00" };

const busy = (status: number, headers: Record<string, string> = {}): Reply => ({
  status,
  json: { errors: [{ reason: status === 429 ? "Too many requests" : "Service is busy; try again later" }] },
  headers,
});

let server: ScriptedServer;
const clients: MgmtClient[] = [];
let delays: number[];
let events: RetryEvent[];

/** A client whose jitter is 0 (back-off = half the exponential step) and whose sleep records. */
function makeClient(extra: Partial<MgmtClientOptions> = {}): MgmtClient {
  const rec = recordingSleep();
  delays = rec.delays;
  events = [];
  const c = new MgmtClient({ url: server.url, token: TOKEN, sleep: rec.sleep, random: () => 0, onRetry: (e) => events.push(e), ...extra });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  server = await ScriptedServer.start();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe("Retry-After", () => {
  test("GET 429 with Retry-After: 3, then 200: succeeds after asking for a 3000 ms wait", async () => {
    const client = makeClient();
    server.reply(busy(429, { "retry-after": "3" }), { status: 200, json: PROFILE });
    await expect(client.getProfile()).resolves.toEqual(PROFILE);
    expect(delays).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
    expect(events).toEqual([{ operation: "getProfile", method: "GET", path: "/profile", attempt: 1, delayMs: 3000, reason: "429" }]);
  });

  test("Retry-After as an HTTP-date, against the injected clock", async () => {
    const client = makeClient({ now: () => Date.parse("Wed, 21 Oct 2015 07:28:00 GMT") });
    server.reply(busy(503, { "retry-after": "Wed, 21 Oct 2015 07:28:05 GMT" }), { status: 200, json: KEY });
    await expect(client.getSshKey(3)).resolves.toEqual(KEY);
    expect(delays).toEqual([5000]);
  });

  test("a Retry-After above the back-off cap is still honoured in full", async () => {
    const client = makeClient();
    server.reply(busy(429, { "retry-after": "45" }), { status: 200, json: PROFILE });
    await client.getProfile();
    expect(delays).toEqual([45_000]);
  });

  test("a Retry-After beyond maxRetryAfterMs fails at once, saying so", async () => {
    const client = makeClient({ retry: { maxRetryAfterMs: 60_000 } });
    server.reply(busy(429, { "retry-after": "600" }));
    const err = (await client.getProfile().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(600_000);
    expect(err.message).toBe("GET /profile: [429] Too many requests (server asked to retry after 600 s, longer than the 60 s this client waits)");
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe("status retries", () => {
  test("GET 503 every time: retried maxRetries times, then ApiError 503 with the body's reason", async () => {
    const client = makeClient({ maxRetries: 3 });
    server.handle(() => busy(503));
    const err = (await client.getProfile().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.errors).toEqual([{ reason: "Service is busy; try again later" }]);
    expect(err.attempts).toBe(4);
    expect(err.message).toBe("GET /profile: [503] Service is busy; try again later (gave up after 4 attempts)");
    expect(server.requests).toHaveLength(4);
    expect(delays).toEqual([250, 500, 1000]); // exponential, jitter 0 = lower half bound
  });

  test("by default the budget is time, not a count: retries while the next starts within 5 minutes of the first attempt", async () => {
    const client = makeClient();
    server.handle(() => busy(500));
    const err = (await client.getProfile().catch((e: unknown) => e)) as ApiError;
    // Back-off doubles up to its cap (15 s at jitter 0), and the waits stop before passing 300 s.
    expect(delays.slice(0, 8)).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
    const waited = delays.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(300_000);
    expect(waited + 15_000).toBeGreaterThan(300_000);
    expect(server.requests).toHaveLength(delays.length + 1);
    expect(err.message).toBe(
      `GET /profile: [500] Service is busy; try again later (gave up after ${delays.length + 1} attempts in 286 s; this client retries for at most 300 s)`,
    );
  });

  test("a Retry-After that would end past the time budget fails at once, saying so", async () => {
    const client = makeClient();
    server.reply(
      busy(429, { "retry-after": "100" }),
      busy(429, { "retry-after": "100" }),
      busy(429, { "retry-after": "100" }),
      busy(429, { "retry-after": "100" }),
    );
    const err = (await client.getProfile().catch((e: unknown) => e)) as ApiError;
    expect(delays).toEqual([100_000, 100_000, 100_000]);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(100_000);
    expect(err.message).toContain("gave up after 4 attempts in 300 s");
  });

  test("maxRetries 0 disables retries", async () => {
    const client = makeClient({ maxRetries: 0 });
    server.handle(() => busy(503));
    await expect(client.getProfile()).rejects.toThrow("GET /profile: [503] Service is busy; try again later");
    expect(server.requests).toHaveLength(1);
  });

  test.each([500, 502, 503, 504])("POST %i is not retried: the server saw exactly one request", async (status) => {
    const client = makeClient();
    server.handle(() => busy(status));
    const err = (await client.createSshKey({ label: "k", ssh_key: ED25519 }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(err.attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  test("POST 429 is retried with the same body", async () => {
    const client = makeClient();
    server.reply(busy(429), busy(429, { "retry-after": "1" }), { status: 200, json: KEY });
    await expect(client.createSshKey({ label: "k", ssh_key: ED25519 })).resolves.toEqual(KEY);
    expect(server.requests.map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(server.requests[2]!.body)).toEqual({ label: "k", ssh_key: ED25519 });
    expect(delays).toEqual([250, 1000]);
  });

  test("PUT 502 is retried", async () => {
    const client = makeClient();
    server.reply(busy(502), { status: 200, json: KEY });
    await expect(client.updateSshKey(3, { label: "k" })).resolves.toEqual(KEY);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["PUT /v4/profile/sshkeys/3", "PUT /v4/profile/sshkeys/3"]);
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ label: "k" });
  });

  test("DELETE 502 is retried", async () => {
    const client = makeClient();
    server.reply(busy(502), busy(504), { status: 200, json: {} });
    await expect(client.deleteSshKey(3)).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([250, 500]);
  });

  test("4xx other than 429 is not retried", async () => {
    const client = makeClient();
    server.handle((r) => (r.pathname === "/v4/profile" ? { status: 200, json: PROFILE } : { status: 404, json: { errors: [{ reason: "Not found" }] } }));
    await expect(client.getSshKey(3)).rejects.toThrow("GET /profile/sshkeys/3: [404] Not found");
    // The one other request is the root check that lets a 404 mean "no such object".
    expect(server.requests.map((r) => r.pathname)).toEqual(["/v4/profile/sshkeys/3", "/v4/profile"]);
  });

  test("each page of a list is retried on its own", async () => {
    const client = makeClient();
    server.reply({ status: 200, json: { data: [KEY], page: 1, pages: 2, results: 2 } }, busy(503), {
      status: 200,
      json: { data: [{ ...KEY, id: 4 }], page: 2, pages: 2, results: 2 },
    });
    const ids: number[] = [];
    for await (const k of client.listSshKeys({ pageSize: 25 })) ids.push(k.id);
    expect(ids).toEqual([3, 4]);
    expect(server.requests.map((r) => r.query.page)).toEqual(["1", "2", "2"]);
  });
});

describe("connection failures", () => {
  test("connection refused on GET: retried, then a clear error", async () => {
    const port = await closedPort();
    const client = makeClient({ url: `http://127.0.0.1:${port}/v4`, maxRetries: 2 });
    const err = (await client.getProfile().catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("connect");
    expect(err.code).toBe("ECONNREFUSED");
    expect(err.attempts).toBe(3);
    expect(err.message).toBe(
      `GET /profile: could not connect (ECONNREFUSED) to http://127.0.0.1:${port} after 3 attempts: nothing answers at http://127.0.0.1:${port}/v4; check the API URL, or start the local API (\`mgmt serve\`)`,
    );
    expect(delays).toEqual([250, 500]);
    expect(events.map((e) => e.reason)).toEqual(["ECONNREFUSED", "ECONNREFUSED"]);
  });

  test("by default a refused connection is given up after 2 retries, though other failures get minutes", async () => {
    const port = await closedPort();
    const client = makeClient({ url: `http://127.0.0.1:${port}/v4` });
    const err = (await client.getSshKey(1).catch((e: unknown) => e)) as NetworkError;
    expect(err.kind).toBe("connect");
    expect(err.attempts).toBe(3);
    expect(delays).toEqual([250, 500]);
  });

  test("a host name that does not resolve is not retried, and says so", async () => {
    const client = makeClient({ url: "http://mgmt-api.invalid/v4" });
    const err = (await client.getProfile().catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.attempts).toBe(1);
    expect(err.message).toContain('the host name "mgmt-api.invalid" does not resolve; check the API URL');
  });

  test("connection refused on POST is retried too: the request was never sent", async () => {
    const port = await closedPort();
    const client = makeClient({ url: `http://127.0.0.1:${port}/v4`, maxRetries: 1 });
    const err = (await client.createSshKey({ ssh_key: ED25519 }).catch((e: unknown) => e)) as NetworkError;
    expect(err.kind).toBe("connect");
    expect(err.attempts).toBe(2);
    expect(delays).toEqual([250]);
  });

  test("a dropped connection on GET is retried", async () => {
    const client = makeClient();
    server.reply("destroy", { status: 200, json: PROFILE });
    await expect(client.getProfile()).resolves.toEqual(PROFILE);
    expect(server.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  test("a dropped connection on POST is not retried: the server may have acted", async () => {
    const client = makeClient();
    server.reply("destroy", { status: 200, json: KEY });
    const err = (await client.createSshKey({ ssh_key: ED25519 }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("network");
    expect(err.message).toMatch(/^POST \/profile\/sshkeys: connection lost \(UND_ERR_SOCKET\) to http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts", () => {
  test("a server that never answers: timeout error", async () => {
    const client = makeClient({ timeoutMs: 100, maxRetries: 0 });
    server.handle(() => "hang");
    const err = await client.getProfile().catch((e: unknown) => e);
    expect(isTimeout(err)).toBe(true);
    expect((err as Error).message).toMatch(/^GET \/profile: timed out .*no complete answer within 100 ms$/);
  });

  test("a timed-out GET is retried", async () => {
    const client = makeClient({ timeoutMs: 100 });
    server.reply("hang", { status: 200, json: PROFILE });
    await expect(client.getProfile()).resolves.toEqual(PROFILE);
    expect(server.requests).toHaveLength(2);
  });

  test("a timed-out POST is not retried", async () => {
    const client = makeClient({ timeoutMs: 100 });
    server.handle(() => "hang");
    const err = await client.createSshKey({ ssh_key: ED25519 }).catch((e: unknown) => e);
    expect(isTimeout(err)).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});

describe("cancellation during a wait", () => {
  test("aborting while sleeping between attempts ends the call", async () => {
    const ac = new AbortController();
    const client = makeClient({
      sleep: async () => {
        ac.abort(new Error("stop"));
      },
    });
    server.handle(() => busy(503));
    const err = (await client.getProfile({ signal: ac.signal }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });
});

describe("credentials that change", () => {
  const unauthorized: Reply = { status: 401, json: { errors: [{ reason: "Invalid Token" }] } };

  /** Hands out tok-1, tok-2, ... and records which token each refresh was told about. */
  function rotating() {
    let n = 1;
    const rejected: string[] = [];
    return {
      rejected,
      credentials: {
        current: async () => `tok-${n}`,
        refresh: async (token: string) => {
          rejected.push(token);
          n++;
          return true;
        },
      },
    };
  }

  test("a 401 refreshes the token and repeats the request once, even a create", async () => {
    const { credentials, rejected } = rotating();
    server.reply(unauthorized, { status: 200, json: KEY });
    const key = await makeClient({ token: credentials }).createSshKey({ label: "k", ssh_key: ED25519 });
    expect(key.id).toBe(3);
    expect(rejected).toEqual(["tok-1"]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
    expect(delays).toEqual([]);
  });

  test("a second 401 is the answer: one refresh per request, no loop", async () => {
    const { credentials, rejected } = rotating();
    server.reply(unauthorized, unauthorized, { status: 200, json: PROFILE });
    const err = await makeClient({ token: credentials })
      .getProfile()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect(rejected).toEqual(["tok-1"]);
    expect(server.requests).toHaveLength(2);
  });

  test("credentials that cannot refresh leave the 401 as it is", async () => {
    server.reply(unauthorized);
    const err = await makeClient({ token: { current: async () => "tok", refresh: async () => false } })
      .getProfile()
      .catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });
});
