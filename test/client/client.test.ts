/** @tier unit */
/** Request shape, parsing, errors and pagination, against a real local HTTP server. */
import { inspect } from "node:util";
import {
  ApiError,
  ApiRootError,
  DEFAULT_USER_AGENT,
  MgmtClient,
  NetworkError,
  ResponseShapeError,
  hasStatus,
  isNotFound,
  listAll,
  type MgmtClientOptions,
} from "../../src/client";
import { ScriptedServer, recordingSleep } from "./scripted-server";
import { closedPort } from "../../testkit/closed-port";
import { PROFILE } from "./fixtures";

const TOKEN = "tok-3f9a1c0d5e7b42a8b6c4d2e0f1a3b5c7";

const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ9w0vL3ePqBvIoGgQ1d0Ck4i2H3mVdQv2zJk0eY4kOs ops@laptop";

function key(id: number, label = `key-${id}`) {
  return { id, label, ssh_key: ED25519, created: "2024-05-01T10:00:00" };
}

let server: ScriptedServer;
let client: MgmtClient;
let delays: number[];

function makeClient(extra: Partial<MgmtClientOptions> = {}): MgmtClient {
  const rec = recordingSleep();
  delays = rec.delays;
  return new MgmtClient({ url: server.url, token: TOKEN, sleep: rec.sleep, ...extra });
}

beforeEach(async () => {
  server = await ScriptedServer.start();
  client = makeClient();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe("request shape", () => {
  test("GET /profile: path under /v4, bearer token, user agent, accept JSON, no body", async () => {
    server.reply({ status: 200, json: PROFILE });
    const profile = await client.getProfile();
    expect(profile).toEqual(PROFILE);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.method).toBe("GET");
    expect(req!.url).toBe("/v4/profile");
    expect(req!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req!.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^terraform-provider-mgmt\/\d+\.\d+\.\d+/);
    expect(req!.headers.accept).toBe("application/json");
    expect(req!.headers["content-type"]).toBeUndefined();
    expect(req!.body).toBe("");
  });

  test("the base URL may end with a slash", async () => {
    await client.close();
    client = makeClient({ url: `${server.url}/` });
    server.reply({ status: 200, json: PROFILE });
    await client.getProfile();
    expect(server.requests[0]!.url).toBe("/v4/profile");
  });

  test("a custom user agent replaces the default", async () => {
    await client.close();
    client = makeClient({ userAgent: "mgmt-cli/9.9.9" });
    server.reply({ status: 200, json: PROFILE });
    await client.getProfile();
    expect(server.requests[0]!.headers["user-agent"]).toBe("mgmt-cli/9.9.9");
  });

  test("POST /profile/sshkeys sends the body as JSON and parses the created key", async () => {
    server.reply({ status: 200, json: key(7, "laptop") });
    const created = await client.createSshKey({ label: "laptop", ssh_key: ED25519 });
    expect(created).toEqual(key(7, "laptop"));
    const [req] = server.requests;
    expect(req!.method).toBe("POST");
    expect(req!.url).toBe("/v4/profile/sshkeys");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(req!.body)).toEqual({ label: "laptop", ssh_key: ED25519 });
  });

  test("PUT /profile/sshkeys/{id} sends the label", async () => {
    server.reply({ status: 200, json: key(3, "renamed") });
    const updated = await client.updateSshKey(3, { label: "renamed" });
    expect(updated.label).toBe("renamed");
    const [req] = server.requests;
    expect([req!.method, req!.url]).toEqual(["PUT", "/v4/profile/sshkeys/3"]);
    expect(JSON.parse(req!.body)).toEqual({ label: "renamed" });
  });

  test("GET and DELETE /profile/sshkeys/{id}", async () => {
    server.reply({ status: 200, json: key(5) }, { status: 200, json: {} });
    await expect(client.getSshKey(5)).resolves.toEqual(key(5));
    await expect(client.deleteSshKey(5)).resolves.toBeUndefined();
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v4/profile/sshkeys/5", "DELETE /v4/profile/sshkeys/5"]);
  });

  test("unknown response fields are dropped, not passed through", async () => {
    server.reply({ status: 200, json: { ...key(5), extra: "x" } });
    const got = await client.getSshKey(5);
    expect(got).toEqual(key(5));
  });

  test("an id that is not an integer is refused before any request", async () => {
    await expect(client.getSshKey(Number.NaN)).rejects.toThrow(TypeError);
    await expect(client.deleteSshKey(1.5)).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });

  test("bad base URLs are refused without echoing credentials", () => {
    expect(() => new MgmtClient({ url: "not a url", token: TOKEN })).toThrow(TypeError);
    expect(() => new MgmtClient({ url: "ftp://127.0.0.1/v4", token: TOKEN })).toThrow(/http or https/);
    expect(() => new MgmtClient({ url: "http://127.0.0.1/v4?x=1", token: TOKEN })).toThrow(/query/);
    let message = "";
    try {
      new MgmtClient({ url: "http://user:hunter2@127.0.0.1/v4", token: TOKEN });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/credentials/);
    expect(message).not.toContain("hunter2");
  });

  test("a token that cannot go in a header is refused without echoing it", () => {
    expect(() => new MgmtClient({ url: server.url, token: "abc\r\nX-Evil: 1" })).toThrow(/visible ASCII/);
    try {
      new MgmtClient({ url: server.url, token: "abc\r\nX-Evil: 1" });
    } catch (err) {
      expect((err as Error).message).not.toContain("Evil");
    }
  });
});

describe("response parsing", () => {
  test("a body that does not match the contract names the operation and the fields", async () => {
    server.reply({ status: 200, json: { id: 3, label: 12, ssh_key: ED25519, created: "yesterday" } });
    const err = await client.getSshKey(3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseShapeError);
    const shape = err as ResponseShapeError;
    expect(shape.operation).toBe("getSshKey");
    expect(shape.status).toBe(200);
    expect(shape.issues.map((i) => i.field).sort()).toEqual(["created", "label"]);
    expect(shape.message).toMatch(/^getSshKey: GET \/profile\/sshkeys\/3 \[200\]: response body does not match the contract: /);
    expect(shape.message).toContain("created: must be a UTC timestamp");
    expect(shape.message).toContain("label: ");
    expect(shape.message).not.toContain("yesterday"); // values are not echoed: a body may hold a secret
  });

  test("a bad item deep in a page names its index", async () => {
    server.reply({ status: 200, json: { data: [key(1), { ...key(2), id: "two" }], page: 1, pages: 1, results: 2 } });
    const err = (await client.listSshKeysPage(1).catch((e: unknown) => e)) as ResponseShapeError;
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.issues.map((i) => i.field)).toEqual(["data.1.id"]);
    expect(err.message).toContain("listSshKeys: GET /profile/sshkeys?page=1");
  });

  test("a profile with an unknown enum value is refused", async () => {
    server.reply({ status: 200, json: { ...PROFILE, lish_auth_method: "telepathy" } });
    const err = (await client.getProfile().catch((e: unknown) => e)) as ResponseShapeError;
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toContain("getProfile");
    expect(err.message).toContain("lish_auth_method");
  });

  test("a success body that is not JSON", async () => {
    server.reply({ status: 200, text: "<html>hello</html>", headers: { "content-type": "text/html" } });
    const err = (await client.getProfile().catch((e: unknown) => e)) as ResponseShapeError;
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toMatch(/getProfile: GET \/profile \[200\]: response body is not JSON: text\/html, 18 bytes/);
  });

  test("an empty success body where one was expected", async () => {
    server.reply({ status: 200 });
    const err = (await client.getSshKey(1).catch((e: unknown) => e)) as ResponseShapeError;
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toContain("response body is empty");
  });

  test("a delete answering something other than {}", async () => {
    server.reply({ status: 200, json: { deleted: true } });
    await expect(client.deleteSshKey(1)).rejects.toThrow(ResponseShapeError);
  });
});

describe("API errors", () => {
  test("400 with field and reason", async () => {
    server.reply({ status: 400, json: { errors: [{ field: "label", reason: "Length must be 64 characters or less." }] } });
    const err = (await client.updateSshKey(3, { label: "x".repeat(65) }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("PUT /profile/sshkeys/3: [400] label: Length must be 64 characters or less.");
    expect(err.status).toBe(400);
    expect(err.method).toBe("PUT");
    expect(err.path).toBe("/profile/sshkeys/3");
    expect(err.errors).toEqual([{ field: "label", reason: "Length must be 64 characters or less." }]);
    expect(err.reasonsFor("label")).toEqual(["Length must be 64 characters or less."]);
    expect(err.attempts).toBe(1);
    expect(isNotFound(err)).toBe(false);
    expect(hasStatus(err, 400)).toBe(true);
    expect(server.requests).toHaveLength(1); // 400 is never retried
  });

  test("a 404 from a URL whose root does not answer is not a 404: no object can be taken for gone, and the message says where the root is", async () => {
    const notFound = { status: 404, json: { errors: [{ reason: "Not found" }] } } as const;
    server.handle(() => notFound);
    const bare = makeClient({ url: server.url.replace(/\/v4$/, "") });
    const origin = server.url.replace(/\/v4$/, "");
    const err = await bare.getSshKey(8).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(false);
    expect(err).toBeInstanceOf(ApiRootError);
    expect((err as Error).message).toBe(
      `${origin} does not answer as the Management API (GET /profile answered [404] Not found), so its 404s cannot mean an object is gone. The API root ends in its version: use ${origin}/v4, as \`mgmt serve\` prints it.`,
    );
    expect(server.requests.map((r) => r.pathname)).toEqual(["/profile/sshkeys/8", "/profile"]);
    // The root's own 404 is the same finding, without a second request.
    expect(await bare.getProfile().catch((e: unknown) => e)).toBeInstanceOf(ApiRootError);
    expect(server.requests).toHaveLength(3);
    await bare.close();
    const wrongPath = makeClient({ url: `${origin}/v3` });
    const other = (await wrongPath.deleteSshKey(8).catch((e: unknown) => e)) as Error;
    await wrongPath.close();
    expect(other).toBeInstanceOf(ApiRootError);
    expect(other.message).toContain(`${origin}/v3 does not answer as the Management API`);
  });

  test("a root that answers something other than the API (an HTML page) is not the API either", async () => {
    server.reply({ status: 404, json: { errors: [{ reason: "Not found" }] } }, { status: 200, text: "<html>hello</html>" });
    const err = (await client.getSshKey(8).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ApiRootError);
    expect(err.message).toContain("GET /profile answered 200 with a body that is not the API's");
  });

  test("the root is checked once per client: later 404s are 404s at once", async () => {
    const notFound = { status: 404, json: { errors: [{ reason: "Not found" }] } } as const;
    server.reply(notFound, { status: 200, json: PROFILE }, notFound, notFound);
    expect(isNotFound(await client.getSshKey(1).catch((e: unknown) => e))).toBe(true);
    expect(isNotFound(await client.getToken(2).catch((e: unknown) => e))).toBe(true);
    expect(isNotFound(await client.deleteSshKey(3).catch((e: unknown) => e))).toBe(true);
    expect(server.requests.map((r) => r.pathname)).toEqual(["/v4/profile/sshkeys/1", "/v4/profile", "/v4/profile/tokens/2", "/v4/profile/sshkeys/3"]);
  });

  test("a wrong token met by the root check is reported as the 401 it is, not as a 404", async () => {
    server.reply({ status: 404, json: { errors: [{ reason: "Not found" }] } }, { status: 401, json: { errors: [{ reason: "Invalid Token" }] } });
    const err = await client.getSshKey(1).catch((e: unknown) => e);
    expect(hasStatus(err, 401)).toBe(true);
  });

  test("several errors, with and without a field", async () => {
    server.reply({
      status: 400,
      json: { errors: [{ field: "ssh_key", reason: "Invalid key" }, { field: null, reason: "Check your input" }, { reason: "Again" }] },
    });
    const err = (await client.createSshKey({ ssh_key: "nope" }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe("POST /profile/sshkeys: [400] ssh_key: Invalid key; Check your input; Again");
    expect(err.errors).toHaveLength(3);
  });

  test("404 -> isNotFound", async () => {
    server.reply({ status: 404, json: { errors: [{ reason: "Not found" }] } }, { status: 200, json: PROFILE });
    const err = await client.getSshKey(9).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).message).toBe("GET /profile/sshkeys/9: [404] Not found");
    expect(isNotFound(new Error("404"))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  test("401", async () => {
    server.reply({ status: 401, json: { errors: [{ reason: "Invalid Token" }] } });
    const err = await client.getProfile().catch((e: unknown) => e);
    expect(hasStatus(err, 401, 403)).toBe(true);
    expect((err as Error).message).toBe("GET /profile: [401] Invalid Token");
  });

  test("an error status whose body is not an error body", async () => {
    server.reply({ status: 502, text: "<html>bad gateway</html>", headers: { "content-type": "text/html" } });
    const err = (await client.createSshKey({ ssh_key: ED25519 }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe("POST /profile/sshkeys: [502] Bad Gateway");
  });

  test("a short text/plain error body becomes the reason", async () => {
    server.reply({ status: 403, text: "forbidden by proxy" });
    const err = (await client.getProfile().catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe("GET /profile: [403] forbidden by proxy");
  });
});

describe("the token stays secret", () => {
  test("not in messages, stacks, inspected errors or the inspected client", async () => {
    server.reply({ status: 400, json: { errors: [{ field: "label", reason: "bad" }] } }, { status: 200, json: { id: "x" } }, { status: 200, text: "nope" });
    const errors: unknown[] = [];
    errors.push(await client.updateSshKey(1, { label: "l" }).catch((e: unknown) => e));
    errors.push(await client.getSshKey(1).catch((e: unknown) => e));
    errors.push(await client.getProfile().catch((e: unknown) => e));
    const down = makeClient({ url: `http://127.0.0.1:${await closedPort()}/v4`, maxRetries: 0 });
    errors.push(await down.getProfile().catch((e: unknown) => e));
    await down.close();
    expect(errors[3]).toBeInstanceOf(NetworkError);
    for (const err of errors) {
      expect(err).toBeInstanceOf(Error);
      const e = err as Error;
      for (const text of [e.message, e.stack ?? "", inspect(e, { depth: 10 }), JSON.stringify(e)]) expect(text).not.toContain(TOKEN);
    }
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(client)).not.toContain(TOKEN);
  });
});

describe("cancellation", () => {
  test("an aborted signal cancels the call", async () => {
    const ac = new AbortController();
    // Stopped once the request is on the server (a timer raced the request on a loaded machine).
    server.handle(() => {
      ac.abort(new Error("stop"));
      return "hang";
    });
    const err = (await client.getProfile({ signal: ac.signal }).catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });

  test("an already aborted signal sends nothing", async () => {
    const err = (await client.getProfile({ signal: AbortSignal.abort() }).catch((e: unknown) => e)) as NetworkError;
    expect(err.kind).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });
});

describe("pagination", () => {
  /** Serves `total` keys with the page and page_size asked for. */
  function serveKeys(total: number) {
    const all = Array.from({ length: total }, (_, i) => key(i + 1));
    server.handle((req) => {
      const page = Number(req.query.page ?? "1");
      const size = Number(req.query.page_size ?? "100");
      const pages = Math.ceil(total / size);
      return { status: 200, json: { data: all.slice((page - 1) * size, page * size), page, pages, results: total } };
    });
    return all;
  }

  test("every item across 3 pages, in order, page_size honoured", async () => {
    const all = serveKeys(60);
    const got = await listAll(client.listSshKeys({ pageSize: 25 }));
    expect(got).toEqual(all);
    expect(server.requests.map((r) => r.query)).toEqual([
      { page: "1", page_size: "25" },
      { page: "2", page_size: "25" },
      { page: "3", page_size: "25" },
    ]);
    expect(server.requests.every((r) => r.pathname === "/v4/profile/sshkeys" && r.method === "GET")).toBe(true);
  });

  test("iterating lazily: stopping early fetches no further page", async () => {
    serveKeys(60);
    const seen: number[] = [];
    for await (const k of client.listSshKeys({ pageSize: 25 })) {
      seen.push(k.id);
      if (k.id === 26) break;
    }
    expect(seen).toHaveLength(26);
    expect(server.requests).toHaveLength(2);
  });

  test("walking a whole list asks for the largest page by default", async () => {
    serveKeys(3);
    const got = await listAll(client.listSshKeys());
    expect(got.map((k) => k.id)).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => r.query)).toEqual([{ page: "1", page_size: "500" }]);
  });

  test("an empty list is one request", async () => {
    server.reply({ status: 200, json: { data: [], page: 1, pages: 0, results: 0 } });
    await expect(listAll(client.listSshKeys())).resolves.toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  test("one page on request; page_size omitted unless given", async () => {
    serveKeys(60);
    const page = await client.listSshKeysPage(2, 25);
    expect(page).toMatchObject({ page: 2, pages: 3, results: 60 });
    expect(page.data.map((k) => k.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 26));
    await client.listSshKeysPage(1);
    expect(server.requests.map((r) => r.url)).toEqual(["/v4/profile/sshkeys?page=2&page_size=25", "/v4/profile/sshkeys?page=1"]);
    await expect(client.listSshKeysPage(0)).rejects.toThrow(TypeError);
  });

  test("an error on a later page ends the iteration with that error", async () => {
    server.reply(
      { status: 200, json: { data: [key(1)], page: 1, pages: 2, results: 2 } },
      { status: 400, json: { errors: [{ field: "page_size", reason: "page_size must be between 25 and 500" }] } },
    );
    await expect(listAll(client.listSshKeys({ pageSize: 1 }))).rejects.toThrow(
      "GET /profile/sshkeys?page=2&page_size=1: [400] page_size: page_size must be between 25 and 500",
    );
    expect(delays).toEqual([]);
  });
});
