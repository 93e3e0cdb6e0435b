/** @tier unit */
/**
 * What real clients and bad days send, over real HTTP on both stores: bodiless operations with
 * any content type, the `/v4beta` alias, ids past the stores' integer range, NUL characters,
 * deeply nested JSON, an update with nothing to change, requests that never finish arriving,
 * and events that commit only with the change they record.
 */
import { MAX_JSON_DEPTH } from "../../src/server/http/body";
import { parseId } from "../../src/server/http/router";
import { call, errorBody, expectJsonError, rawHttp, startTestServer, type TestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface RawReply {
  status: number;
  head: string;
  body: unknown;
}

/** The status, head and JSON body of a raw exchange. */
async function raw(port: number, chunks: string[]): Promise<RawReply> {
  const text = await rawHttp(port, chunks);
  const split = text.indexOf("\r\n\r\n");
  const head = split < 0 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let body: unknown;
  try {
    body = JSON.parse(text.slice(split + 4));
  } catch {
    body = undefined;
  }
  return { status, head, body };
}

const auth = () => `Authorization: Bearer ${server.token}\r\n`;
const request = (method: string, path: string, headers: string, body = "") =>
  raw(server.port, [`${method} /v4${path} HTTP/1.1\r\nHost: localhost\r\n${auth()}Connection: close\r\n${headers}\r\n${body}`]);

async function newKey(label = "k"): Promise<number> {
  const res = await call(server, "POST", "/profile/sshkeys", { json: { label, ssh_key: ed25519Key() } });
  expect(res.status).toBe(200);
  return (res.body as { id: number }).id;
}

async function newClient(): Promise<{ id: string; secret: string; label: string }> {
  const res = await call(server, "POST", "/account/oauth-clients", { json: { label: "app", redirect_uri: "https://app.example.com/cb" } });
  expect(res.status).toBe(200);
  return res.body as { id: string; secret: string; label: string };
}

const keyLabels = async () =>
  ((await call(server, "GET", "/profile/sshkeys")).body as { data: Array<{ id: number; label: string }> }).data.map((k) => `${k.id}:${k.label}`);

describe("bodiless operations, whatever the content type says", () => {
  test.each([
    ["a form content type with Content-Length: 0", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n"],
    ["no content type and Content-Length: 0", "Content-Length: 0\r\n"],
    ["application/json with Content-Length: 0", "Content-Type: application/json\r\nContent-Length: 0\r\n"],
    ["application/json and nothing declared to follow", "Content-Type: application/json\r\n"],
    ["an unparseable content type and Content-Length: 0", "Content-Type: ;;;\r\nContent-Length: 0\r\n"],
    ["application/json, chunked, zero bytes", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"],
  ])("POST reset-secret with %s → 200 and a new secret", async (_what, headers) => {
    const client = await newClient();
    const chunked = headers.includes("chunked");
    const res = await request("POST", `/account/oauth-clients/${client.id}/reset-secret`, headers, chunked ? "0\r\n\r\n" : "");
    expect(res.status).toBe(200);
    const secret = (res.body as { secret: string }).secret;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secret).not.toBe(client.secret);
  });

  test("POST with an empty JSON object where the operation takes no body → 200", async () => {
    const client = await newClient();
    expect((await call(server, "POST", `/account/oauth-clients/${client.id}/reset-secret`, { json: {} })).status).toBe(200);
  });

  test("event read and seen from a client that sends a form content type and no body", async () => {
    await newKey("for an event");
    const events = (await call(server, "GET", "/account/events")).body as { data: Array<{ id: number }> };
    const id = events.data[0]!.id;
    const form = "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n";
    expect((await request("POST", `/account/events/${id}/read`, form)).status).toBe(200);
    expect((await request("POST", `/account/events/${id}/seen`, form)).status).toBe(200);
    const event = (await call(server, "GET", `/account/events/${id}`)).body as { read: boolean; seen: boolean };
    expect(event).toMatchObject({ read: true, seen: true });
  });

  test("DELETE with Content-Type: application/json and no body → 200, and the key is gone", async () => {
    const id = await newKey("to delete");
    const res = await request("DELETE", `/profile/sshkeys/${id}`, "Content-Type: application/json\r\n");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await call(server, "GET", `/profile/sshkeys/${id}`)).status).toBe(404);
  });

  test("an operation that takes a body still asks for one", async () => {
    const res = await request("POST", "/profile/sshkeys", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field: "ssh_key", reason: "ssh_key is required" }] });
    const empty = await request("POST", "/profile/sshkeys", "Content-Type: application/json\r\nContent-Length: 0\r\n");
    expect(empty.body).toEqual({ errors: [{ field: "ssh_key", reason: "ssh_key is required" }] });
  });

  test("a form body where the operation takes none is ignored; where it reads one, it must be JSON", async () => {
    const client = await newClient();
    const form = "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n";
    const ignored = await request("POST", `/account/oauth-clients/${client.id}/reset-secret`, form, "a=b");
    expect(ignored.status).toBe(200);
    const refused = await request("POST", "/profile/sshkeys", form, "a=b");
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorBody("Content-Type must be application/json"));
  });
});

describe("/v4beta is the same API as /v4", () => {
  test("reads, writes and the OpenAPI document", async () => {
    const v4 = await call(server, "GET", "//v4/profile");
    const beta = await call(server, "GET", "//v4beta/profile");
    expect(beta.status).toBe(200);
    expect(beta.body).toEqual(v4.body);

    const created = await call(server, "POST", "//v4beta/profile/sshkeys", { json: { label: "via beta", ssh_key: ed25519Key() } });
    expect(created.status).toBe(200);
    const id = (created.body as { id: number }).id;
    expect((await call(server, "GET", `/profile/sshkeys/${id}`)).body).toMatchObject({ label: "via beta" });
    expect((await call(server, "GET", `//v4beta/profile/sshkeys/${id}?page=1`)).status).toBe(200);
    const doc = await call(server, "GET", "//v4beta/openapi.json", { token: null });
    expect((doc.body as { servers: Array<{ url: string }> }).servers.map((s) => s.url)).toEqual(["/v4", "/v4beta"]);
  });

  test("its errors are the /v4 ones", async () => {
    expectJsonError(await call(server, "GET", "//v4beta/profile", { token: null }), 401);
    expectJsonError(await call(server, "GET", "//v4beta/nothing-here"), 404);
    const res = await call(server, "PATCH", "//v4beta/profile/sshkeys");
    expectJsonError(res, 405);
    expect(res.headers.allow).toBe("GET, HEAD, OPTIONS, POST");
  });

  test("only the exact prefix is an alias", async () => {
    expectJsonError(await call(server, "GET", "//v4betas/profile"), 404);
    expectJsonError(await call(server, "GET", "//v4beta2/profile"), 404);
  });
});

describe("ids past the stores' integer range are simply not found", () => {
  const huge = ["2147483648", "4294967296", "9007199254740991", "9999999999999999"];
  test.each(huge)("id %s", async (id) => {
    for (const [method, path] of [
      ["GET", `/profile/sshkeys/${id}`],
      ["DELETE", `/profile/sshkeys/${id}`],
      ["GET", `/profile/tokens/${id}`],
      ["DELETE", `/profile/tokens/${id}`],
      ["GET", `/account/events/${id}`],
      ["POST", `/account/events/${id}/read`],
      ["POST", `/account/events/${id}/seen`],
      ["GET", `/profile/apps/${id}`],
      ["GET", `/profile/devices/${id}`],
    ] as const) {
      expect(expectJsonError(await call(server, method, path), 404)).toEqual(errorBody("Not found"));
    }
    const put = await call(server, "PUT", `/profile/sshkeys/${id}`, { json: { label: "x" } });
    expectJsonError(put, 404);
  });

  test("the largest id a store holds is a valid id, and asking for it is an ordinary miss", async () => {
    // The route takes it (the boundary is inclusive); one more is out of range and names nothing.
    expect(parseId("2147483647")).toBe(2147483647);
    expect(parseId("2147483648")).toBeUndefined();
    expectJsonError(await call(server, "GET", "/profile/sshkeys/2147483647"), 404);
  });

  test("ids in bodies name nothing either: tags and entity transfers answer as for any unknown object", async () => {
    const tag = await call(server, "POST", "/tags", { json: { label: "big ids", computes: [2147483648] } });
    expect(expectJsonError(tag, 403)).toEqual(errorBody("You do not have read_write access to compute 2147483648", "computes.0"));
    const transfer = await call(server, "POST", "/account/entity-transfers", { json: { entities: { computes: [4294967296] } } });
    expect(expectJsonError(transfer, 400)).toEqual(errorBody("compute 4294967296 is not on this account", "entities.computes.0"));
  });
});

describe("NUL characters are refused in bodies and name nothing in paths", () => {
  test.each([
    ["/profile/sshkeys", () => ({ label: "a\u0000b", ssh_key: ed25519Key() }), "label"],
    ["/profile/tokens", () => ({ label: "\u0000" }), "label"],
    ["/tags", () => ({ label: "tag\u0000" }), "label"],
    ["/account/oauth-clients", () => ({ label: "app\u0000", redirect_uri: "https://app.example.com/cb" }), "label"],
  ])("POST %s with a NUL in the label → 400 naming it, nothing created", async (path, body, field) => {
    const before = (await call(server, "GET", path)).body as { results: number };
    const res = await call(server, "POST", path, { json: body() });
    expect(expectJsonError(res, 400)).toEqual(errorBody(`${field} must not contain NUL characters`, field));
    expect(((await call(server, "GET", path)).body as { results: number }).results).toBe(before.results);
  });

  test("nested fields and keys are named by their dotted path", async () => {
    const res = await call(server, "PUT", "/profile", { json: { authorized_keys: ["ok", "bad\u0000"] } });
    expect(expectJsonError(res, 400)).toEqual(errorBody("authorized_keys.1 must not contain NUL characters", "authorized_keys.1"));
    const prefs = await call(server, "PUT", "/profile/preferences", { json: { theme: { "da\u0000rk": true } } });
    expect(expectJsonError(prefs, 400).errors[0]!.field).toBe("theme.da\u0000rk");
  });

  test("a lone surrogate (valid JSON, no character) is refused the same way", async () => {
    const before = await keyLabels();
    const key = await call(server, "POST", "/profile/sshkeys", {
      body: `{"label":"a\\ud800","ssh_key":"${ed25519Key()}"}`,
      headers: { "content-type": "application/json" },
    });
    expect(expectJsonError(key, 400)).toEqual(errorBody("label must be valid Unicode text (it has a lone surrogate)", "label"));
    const prefs = await call(server, "PUT", "/profile/preferences", { body: '{"x":["\\udfff"]}', headers: { "content-type": "application/json" } });
    expect(expectJsonError(prefs, 400).errors[0]!.field).toBe("x.0");
    // A proper pair is a character like any other.
    const emoji = await call(server, "POST", "/profile/sshkeys", { json: { label: "key 💥", ssh_key: ed25519Key() } });
    expect(emoji.body).toMatchObject({ label: "key 💥" });
    expect((await keyLabels()).length).toBe(before.length + 1);
  });

  test("a NUL in a path parameter → 404", async () => {
    expect((await call(server, "POST", "/tags", { json: { label: "kept" } })).status).toBe(200);
    expectJsonError(await call(server, "GET", "/tags/%00"), 404);
    expectJsonError(await call(server, "DELETE", "/tags/kept%00"), 404);
    expectJsonError(await call(server, "GET", "/account/oauth-clients/%00"), 404);
    expect((await call(server, "GET", "/tags/kept")).status).toBe(200);
  });
});

describe("JSON nesting depth", () => {
  /** `depth` arrays, one inside the other. */
  const arrays = (depth: number) => "[".repeat(depth) + "1" + "]".repeat(depth);

  test("5,000 levels deep → 400 naming the body, preferences unchanged", async () => {
    const before = (await call(server, "GET", "/profile/preferences")).body;
    const body = `{"deep":${arrays(5000)}}`;
    const res = await call(server, "PUT", "/profile/preferences", { body, headers: { "content-type": "application/json" } });
    expect(expectJsonError(res, 400)).toEqual(errorBody(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`));
    expect((await call(server, "GET", "/profile/preferences")).body).toEqual(before);
  });

  test("the limit itself is accepted; brackets inside strings do not count", async () => {
    const atLimit = `{"deep":${arrays(MAX_JSON_DEPTH - 1)},"text":"${"[".repeat(200)}"}`;
    const res = await call(server, "PUT", "/profile/preferences", { body: atLimit, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    const over = `{"deep":${arrays(MAX_JSON_DEPTH)}}`;
    expectJsonError(await call(server, "PUT", "/profile/preferences", { body: over, headers: { "content-type": "application/json" } }), 400);
  });
});

describe("an update with nothing to change", () => {
  test("PUT /account/oauth-clients/{id} with {} answers the client as it is, and records no event", async () => {
    const client = await newClient();
    const view = (await call(server, "GET", `/account/oauth-clients/${client.id}`)).body;
    const events = ((await call(server, "GET", "/account/events")).body as { results: number }).results;
    const res = await call(server, "PUT", `/account/oauth-clients/${client.id}`, { json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(view);
    expect(((await call(server, "GET", "/account/events")).body as { results: number }).results).toBe(events);
  });

  test("a partial update still changes just its field", async () => {
    const client = await newClient();
    const res = await call(server, "PUT", `/account/oauth-clients/${client.id}`, { json: { public: true } });
    expect(res.body).toMatchObject({ label: "app", public: true, redirect_uri: "https://app.example.com/cb" });
  });
});

describe("requests that never finish arriving → 408", () => {
  let slow: TestServer;
  beforeAll(async () => {
    // Short limits keep the test quick; the defaults are seconds.
    slow = await startTestServer({ timeouts: { headers: 200, request: 400 } });
  });
  afterAll(() => slow.close());

  const keysOf = async () => ((await call(slow, "GET", "/profile/sshkeys")).body as { results: number }).results;

  test("a body promised and never sent: 408 JSON, the connection closed, nothing created", async () => {
    const before = await keysOf();
    const body = JSON.stringify({ label: "never", ssh_key: ed25519Key() });
    const res = await raw(slow.port, [
      `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${slow.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    ]);
    expect(res.status).toBe(408);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual(errorBody("The request was not received in time"));
    expect(await keysOf()).toBe(before);
  });

  test("headers that never end: 408 JSON", async () => {
    const res = await raw(slow.port, ["GET /v4/profile HTTP/1.1\r\nHost: localhost\r\nX-Slow: "]);
    expect(res.status).toBe(408);
    expect(res.body).toEqual(errorBody("The request was not received in time"));
  });

  test("a request sent in time is served as usual", async () => {
    expect((await call(slow, "GET", "/profile")).status).toBe(200);
  });
});

describe("a change and its event commit together", () => {
  /** Makes every event insert fail (an outage of the events table) while `fn` runs, held-back ones included. */
  async function withFailingEvents(fn: () => Promise<void>): Promise<void> {
    type Insert = (...args: unknown[]) => Promise<unknown>;
    const proto = Object.getPrototypeOf(server.store.events) as { insert: Insert; insertLater: Insert };
    const { insert, insertLater } = proto;
    const unavailable = async () => {
      throw new Error("events table unavailable");
    };
    proto.insert = unavailable;
    proto.insertLater = unavailable;
    try {
      await fn();
    } finally {
      proto.insert = insert;
      proto.insertLater = insertLater;
    }
  }

  test("SSH key create and delete roll back when their event cannot be written", async () => {
    const id = await newKey("stays");
    const before = await keyLabels();
    await withFailingEvents(async () => {
      expectJsonError(await call(server, "POST", "/profile/sshkeys", { json: { label: "orphan", ssh_key: ed25519Key() } }), 500);
      expectJsonError(await call(server, "DELETE", `/profile/sshkeys/${id}`), 500);
    });
    expect(await keyLabels()).toEqual(before);
  });

  // Issue 44, item 3's rule: a write answers 500 only when nothing was committed. The event is written after the
  // object's row, in its transaction: failing it is a failure after the row is written, and every table must be as
  // it was (the dump compares them all), across the areas' writes.
  test.each([
    ["POST", "/tags", { label: "orphan-tag" }],
    ["PUT", "/profile", { timezone: "Europe/Paris" }],
    ["POST", "/profile/tokens", { label: "orphan-token" }],
    ["POST", "/profile/sshkeys", { label: "orphan-key", ssh_key: ed25519Key() }],
    ["POST", "/account/oauth-clients", { label: "orphan-app", redirect_uri: "https://example.com/cb" }],
  ] as const)("%s %s: a failure after the row is written answers 500 and leaves every table as it was", async (method, path, json) => {
    const before = await server.store.dump();
    await withFailingEvents(async () => {
      expectJsonError(await call(server, method, path, { json }), 500);
    });
    expect(await server.store.dump()).toEqual(before);
  });

  test("token create rolls back when its event cannot be written", async () => {
    const count = async () => ((await call(server, "GET", "/profile/tokens")).body as { results: number }).results;
    const before = await count();
    await withFailingEvents(async () => {
      expectJsonError(await call(server, "POST", "/profile/tokens", { json: { label: "orphan" } }), 500);
    });
    expect(await count()).toBe(before);
  });
});
