/** @tier unit */
/**
 * The client's signal is the provider's stop (the engine's Ctrl-C): it cancels waits, requests
 * not yet sent and reads in flight, but never a write already sent, whose outcome the API may
 * have decided. Against a real local HTTP server whose answers each test scripts.
 */
import { ApiError, MgmtClient, NetworkError, isNotFound, type Credentials, type MgmtClientOptions } from "../../src/client";
import { outcomeUnknown } from "../../src/client/create-once";
import { PROFILE } from "./fixtures";
import { ScriptedServer, recordingSleep, type Reply } from "./scripted-server";

const TOKEN = "tok-5b0e2c9d4a7f41e3a8c6b2d0e9f1a3c5";
const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ9w0vL3ePqBvIoGgQ1d0Ck4i2H3mVdQv2zJk0eY4kOs ops@laptop";
const KEY = { id: 7, label: "laptop", ssh_key: ED25519, created: "2024-05-01T10:00:00" };
const busy: Reply = { status: 503, json: { errors: [{ reason: "Service unavailable" }] } };

let server: ScriptedServer;
let stop: AbortController;
let delays: number[];

function makeClient(extra: Partial<MgmtClientOptions> = {}): MgmtClient {
  const rec = recordingSleep();
  delays = rec.delays;
  return new MgmtClient({ url: server.url, token: TOKEN, sleep: rec.sleep, signal: stop.signal, ...extra });
}

/** `reply`, after the stop came: the request is on the server when the engine asks the provider to stop. */
const stopThen = (reply: Reply) => (): Reply => {
  stop.abort(new Error("the engine asked the provider to stop"));
  return reply;
};

beforeEach(async () => {
  server = await ScriptedServer.start();
  stop = new AbortController();
});
afterEach(() => server.close());

describe("a stop while a write is in flight", () => {
  test("the write runs to its answer, which is the result", async () => {
    server.handle(stopThen({ status: 200, json: KEY }));
    const client = makeClient();
    await expect(client.createSshKey({ label: "laptop", ssh_key: ED25519 })).resolves.toEqual(KEY);
    expect(server.requests.map((r) => r.method)).toEqual(["POST"]);
    await client.close();
  });

  test("a write that then times out is an unknown outcome, not a cancellation", async () => {
    server.handle(stopThen("hang"));
    const client = makeClient({ timeoutMs: 100 });
    const err = await client.createSshKey({ label: "laptop", ssh_key: ED25519 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("timeout");
    expect(outcomeUnknown(err)).toBe(true);
    await client.close();
  });

  test("a read in flight is abandoned", async () => {
    server.handle(stopThen("hang"));
    const client = makeClient();
    const err = (await client.getProfile().catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("aborted");
    await client.close();
  });
});

describe("a write the API may have acted on, stopped before its retry", () => {
  test("is repeated once at once, without the back-off, and the repeat's answer is the result", async () => {
    server.handle((_req, i) => (i === 0 ? stopThen(busy)() : { status: 200, json: KEY }));
    const client = makeClient();
    await expect(client.updateSshKey(7, { label: "laptop" })).resolves.toEqual(KEY);
    expect(server.requests.map((r) => r.method)).toEqual(["PUT", "PUT"]);
    expect(delays).toEqual([]);
    await client.close();
  });

  test("fails with what it met when the repeat leaves it unknown too: no third attempt", async () => {
    server.handle((_req, i) => (i === 0 ? stopThen(busy)() : busy));
    const client = makeClient();
    const err = (await client.updateSshKey(7, { label: "laptop" }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.message).toContain("stopped after 2 attempts");
    expect(server.requests).toHaveLength(2);
    await client.close();
  });

  test("a delete whose connection broke learns from the repeat's 404 that it went through", async () => {
    server.handle((req, i) =>
      i === 0
        ? stopThen("destroy")()
        : req.pathname === "/v4/profile"
          ? { status: 200, json: PROFILE }
          : { status: 404, json: { errors: [{ reason: "Not found" }] } },
    );
    const client = makeClient();
    const err = await client.deleteSshKey(7).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(server.requests.map((r) => `${r.method} ${r.pathname}`)).toEqual([
      "DELETE /v4/profile/sshkeys/7",
      "DELETE /v4/profile/sshkeys/7",
      "GET /v4/profile",
    ]);
    await client.close();
  });
});

describe("what the stop cancels", () => {
  test("a write not yet sent: nothing goes out", async () => {
    stop.abort();
    const client = makeClient();
    const err = (await client.createSshKey({ label: "laptop", ssh_key: ED25519 }).catch((e: unknown) => e)) as NetworkError;
    expect(err.kind).toBe("aborted");
    expect(outcomeUnknown(err)).toBe(false);
    expect(server.requests).toHaveLength(0);
    await client.close();
  });

  test("a write whose token was being fetched when the stop came: nothing goes out", async () => {
    const credentials: Credentials = {
      current: async () => {
        stop.abort();
        return TOKEN;
      },
      refresh: async () => false,
    };
    const client = makeClient({ token: credentials });
    const err = (await client.createSshKey({ label: "laptop", ssh_key: ED25519 }).catch((e: unknown) => e)) as NetworkError;
    expect(err.kind).toBe("aborted");
    expect(server.requests).toHaveLength(0);
    await client.close();
  });

  test("the wait before repeating a write the API refused without acting on it (429)", async () => {
    server.handle(stopThen({ status: 429, headers: { "retry-after": "1" }, json: { errors: [{ reason: "Too many requests" }] } }));
    const client = makeClient();
    const err = (await client.createSshKey({ label: "laptop", ssh_key: ED25519 }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
    await client.close();
  });

  test("a back-off the caller waits itself: no retry, without waiting", async () => {
    stop.abort();
    const client = makeClient();
    await expect(client.http.backoff(1)).resolves.toBeUndefined();
    expect(delays).toEqual([]);
    await client.close();
  });

  test("nothing of a call made with `signal: null`", async () => {
    stop.abort();
    server.reply({ status: 200, json: PROFILE });
    const client = makeClient();
    await expect(client.getProfile({ signal: null })).resolves.toMatchObject({ username: PROFILE.username });
    await client.close();
  });
});
