/** @tier unit */
/**
 * Bad requests of every kind get a JSON error body with the right status, never HTML and
 * never a 5xx; an unexpected exception gets a JSON 500 and a log line.
 */
import { ErrorBody } from "../../src/contract";
import { ManualClock, lineLogger, seededSecrets } from "../../src/server";
import { createDomain, registerRoutes, repos } from "../../src/server/areas";
import { buildApp } from "../../src/server/http/app";
import { openSqliteStore } from "../../src/server/store/sqlite";
import { call, errorBody, expectJsonError, rawHttp, startTestServer, type TestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";

let server: TestServer;
let keyId: number;
beforeAll(async () => {
  server = await startTestServer();
  keyId = ((await call(server, "POST", "/profile/sshkeys", { json: { label: "k", ssh_key: ed25519Key() } })).body as { id: number }).id;
});
afterAll(() => server.close());

describe("request bodies", () => {
  const post = (body: string | Buffer, contentType?: string) =>
    call(server, "POST", "/profile/sshkeys", { body, headers: contentType === undefined ? {} : { "content-type": contentType } });

  test("malformed JSON → 400", async () => {
    for (const body of ["{", "{label:1}", '{"label": }', "[1,]", "nul", '"unterminated', "{}}"]) {
      expect(expectJsonError(await post(body, "application/json"), 400)).toEqual(errorBody("Request body is not valid JSON"));
    }
  });

  test("an empty JSON body is no body: 400 naming the field the operation needs, as upstream reads it (an empty object)", async () => {
    expect(expectJsonError(await post("", "application/json"), 400)).toEqual({ errors: [{ field: "ssh_key", reason: "ssh_key is required" }] });
  });

  test("a JSON body with a charset parameter is fine", async () => {
    const res = await post(JSON.stringify({ label: "cs", ssh_key: ed25519Key() }), "application/json; charset=utf-8");
    expect(res.status).toBe(200);
  });

  test.each([
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "image/png",
    "jsonish",
    "application/jsonx",
  ])("Content-Type %s → 400", async (type) => {
    expect(expectJsonError(await post(JSON.stringify({ label: "x", ssh_key: ed25519Key() }), type), 400)).toEqual(
      errorBody("Content-Type must be application/json"),
    );
  });

  test("a body without a Content-Type → 400", async () => {
    expectJsonError(await post("{}"), 400);
  });

  test("no body at all → 400 naming each field the operation needs (upstream's answer to a bodiless POST)", async () => {
    // linodego's CreateSSHKey and the Ansible ssh_key module always send a body; a bare `curl -X POST` does not.
    expect(expectJsonError(await call(server, "POST", "/profile/sshkeys"), 400)).toEqual({ errors: [{ field: "ssh_key", reason: "ssh_key is required" }] });
    expect(expectJsonError(await call(server, "POST", "/account/oauth-clients"), 400)).toEqual({
      errors: [
        { field: "label", reason: "label is required" },
        { field: "redirect_uri", reason: "redirect_uri is required" },
      ],
    });
  });

  test("prototype pollution attempts → 400", async () => {
    expectJsonError(await post('{"__proto__": {"admin": true}, "label": "x"}', "application/json"), 400);
    expectJsonError(await post('{"constructor": {"prototype": {"admin": true}}}', "application/json"), 400);
  });

  test("an oversized body → 413", async () => {
    const big = JSON.stringify({ label: "x", ssh_key: ed25519Key(), pad: "x".repeat(1024 * 1024) });
    expect(expectJsonError(await post(big, "application/json"), 413)).toEqual(errorBody("Request body is too large"));
  });

  test("a body just under the limit is read (and then judged on its content)", async () => {
    const body = JSON.stringify({ label: "x".repeat(1000 * 1000) });
    expect(
      expectJsonError(await post(body, "application/json"), 400)
        .errors.map((e) => e.field)
        .sort(),
    ).toEqual(["label", "ssh_key"]);
  });
});

describe("routes and methods", () => {
  test.each(["/nope", "/profile/nope", "/profile/sshkeys/1/extra", "/Profile", "/v5/profile"])("unknown route %s → 404", async (path) => {
    expect(expectJsonError(await call(server, "GET", path), 404)).toEqual(errorBody("Not found"));
  });

  test("unknown routes outside /v4 → 404, with or without a token", async () => {
    for (const path of ["//", "//profile", "//v4", "//favicon.ico", "//v4betas/profile", "//v5/profile"]) {
      expectJsonError(await call(server, "GET", path), 404);
      expectJsonError(await call(server, "GET", path, { token: null }), 404);
    }
  });

  test("an unknown route with a bad body is still 404", async () => {
    expectJsonError(await call(server, "POST", "/nope", { body: "{", headers: { "content-type": "application/json" } }), 404);
  });

  test("a known path with an unsupported method → 405 with Allow", async () => {
    const cases: Array<[string, string, string]> = [
      ["PATCH", "/profile/sshkeys", "GET, HEAD, OPTIONS, POST"],
      ["DELETE", "/profile/sshkeys", "GET, HEAD, OPTIONS, POST"],
      ["PUT", "/profile/sshkeys", "GET, HEAD, OPTIONS, POST"],
      ["POST", `/profile/sshkeys/${keyId}`, "DELETE, GET, HEAD, OPTIONS, PUT"],
      ["PATCH", `/profile/sshkeys/${keyId}`, "DELETE, GET, HEAD, OPTIONS, PUT"],
      ["PATCH", "/profile", "GET, HEAD, OPTIONS, PUT"],
      ["DELETE", "/profile", "GET, HEAD, OPTIONS, PUT"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(server, method, path, { body: "{", headers: { "content-type": "application/json" } });
      expect(expectJsonError(res, 405)).toEqual(errorBody("Method not allowed"));
      expect(res.headers.allow).toBe(allow);
    }
  });

  test("HEAD of a GET route answers headers only", async () => {
    const res = await call(server, "HEAD", "/profile");
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
  });

  test("a trailing slash names the same route", async () => {
    expect((await call(server, "GET", "/profile/sshkeys/")).status).toBe(200);
  });

  test("an overlong path segment → 414 JSON", async () => {
    expectJsonError(await call(server, "GET", `/profile/sshkeys/${"1".repeat(200)}`), 414);
  });

  test("a malformed percent-escape in the path → 404", async () => {
    expectJsonError(await call(server, "GET", "/profile/sshkeys/%zz"), 404);
  });
});

describe("protocol errors", () => {
  const raw = (payload: string) => rawHttp(server.port, [payload]);

  test("a garbled request line gets a JSON 400", async () => {
    const out = await raw("GARBAGE / NOT-HTTP\r\n\r\n");
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(out).toContain("application/json");
    expect(ErrorBody.parse(JSON.parse(out.slice(out.indexOf("\r\n\r\n") + 4)))).toEqual(errorBody("Bad request"));
  });

  test("oversized headers get a JSON 431", async () => {
    const out = await raw(`GET /v4/profile HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 431 /);
    expect(ErrorBody.parse(JSON.parse(out.slice(out.indexOf("\r\n\r\n") + 4)))).toEqual(errorBody("Request headers are too large"));
  });

  test("a Content-Length that lies gets a 4xx, not a hang or a 5xx", async () => {
    const out = await raw(
      `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}`,
    );
    expect(out).toMatch(/^HTTP\/1\.1 4\d\d /);
  });
});

describe("fuzz: no input produces a 5xx", () => {
  // A small deterministic generator, so a failure reproduces.
  let seed = 20250301;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const junkString = () => {
    const alphabet = ['"', "{", "}", "[", "]", ",", ":", "\\", "\u0000", "é", "😀", "a", "1", " ", "\n", "%", "/", "-", "e", "."];
    return Array.from({ length: Math.floor(rand() * 40) }, () => pick(alphabet)).join("");
  };
  const jsonValue = (depth = 0): unknown => {
    const kind = Math.floor(rand() * (depth > 2 ? 5 : 7));
    switch (kind) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 1e308, -0, 2 ** 53, 64, 65]);
      case 3:
        return pick(["", "x".repeat(65), "x".repeat(64), junkString(), ed25519Key(), "ssh-ed25519 AAAA", "ssh-rsa", "*"]);
      case 4:
        return junkString();
      case 5:
        return Array.from({ length: Math.floor(rand() * 4) }, () => jsonValue(depth + 1));
      default: {
        const keys = ["label", "ssh_key", "id", "created", "page", "__proto__", "constructor", junkString()];
        return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick(keys), jsonValue(depth + 1)]));
      }
    }
  };
  const paths = () =>
    pick([
      "/profile",
      "/profile/sshkeys",
      `/profile/sshkeys/${pick(["0", "-1", "abc", "1.0", "9".repeat(20), "%00", "%2F", "..", "%", "😀", "1;2", "1%20"])}`,
      `/profile/sshkeys?${pick(["page", "page_size", "page[]", "page[a]"])}=${encodeURIComponent(junkString())}`,
      `/profile/sshkeys?page=${pick(["1", "0", "-5", "1e3", "0x1", "", "999999999999999999999"])}&page_size=${pick(["25", "24", "500", "501", "", "abc", "1e2"])}`,
      `/${encodeURIComponent(junkString())}`,
      "/profile/sshkeys/../sshkeys",
      "/profile//sshkeys",
    ]);
  const contentTypes = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "",
    "application/octet-stream",
    "application/json; charset=latin1",
    "APPLICATION/JSON",
  ];

  test("several hundred malformed requests", async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      // Half the requests aim junk at the two operations that read a body.
      const [method, path] =
        rand() < 0.5
          ? pick([
              ["POST", "/profile/sshkeys"],
              ["PUT", `/profile/sshkeys/${keyId}`],
            ] as const)
          : [pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]), paths()];
      const contentType = pick(contentTypes);
      const body = rand() < 0.6 ? JSON.stringify(jsonValue()) : junkString();
      const withBody = method !== "GET" && method !== "HEAD" && rand() < 0.9;
      const res = await call(server, method, path, {
        body: withBody ? body : undefined,
        headers: withBody && contentType !== "" ? { "content-type": contentType } : {},
        token: rand() < 0.1 ? pick([null, "wrong", "x".repeat(300)]) : undefined,
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text}`);
      if (method !== "HEAD" && res.status >= 400) {
        expect(res.headers["content-type"]).toMatch(/^application\/json/);
        ErrorBody.parse(res.body);
      }
    }
    // The loop exercised successes and several kinds of refusal.
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(4);
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect(server.logs.join("")).not.toContain('"level":"error"');
  });
});

describe("an unexpected exception", () => {
  test("→ 500 JSON body and one error log line, without the request's token", async () => {
    const lines: string[] = [];
    const clock = new ManualClock();
    const store = await openSqliteStore(":memory:", repos);
    const domain = createDomain({ store, clock, secrets: seededSecrets() });
    const { token } = await domain.accounts.bootstrap();
    domain.sshKeys.list = async () => {
      throw new Error("disk on fire");
    };
    const app = buildApp({
      authenticate: (bearer) => domain.auth.authenticate(bearer),
      routes: (router) => registerRoutes(router, domain),
      logger: lineLogger((l) => lines.push(l)),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const address = app.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${address.port}/v4/profile/sshkeys`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(errorBody("Internal server error"));
      const errors = lines.filter((l) => l.includes('"level":"error"'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("disk on fire");
      expect(lines.join("")).not.toContain(token!);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
