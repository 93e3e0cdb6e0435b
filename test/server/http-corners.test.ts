/** @tier unit */
/**
 * The corners of HTTP/1.1 below the routes, over a raw socket on both stores: every error is the
 * API's JSON error body (a missing Host, CONNECT, a refused request line), a HEAD answer has no
 * body, an oversized body gets its 413 rather than a reset (the answer whole, then a FIN: a client
 * still sending reads it, where a reset could discard it), an answer given before the body closes
 * the connection rather than reading the body, and bytes that are not UTF-8 are refused rather
 * than stored as U+FFFD.
 */
import { connect } from "node:net";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { exchange, rawRequest, splitResponses, type RawResponse } from "./raw-socket";
import { ed25519Key } from "./sshkey-gen";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const json = (res: RawResponse | undefined) => {
  expect(res?.headers["content-type"]).toMatch(/^application\/json/);
  return JSON.parse(res!.body) as unknown;
};

const keyLabels = async () =>
  ((await call(server, "GET", "/profile/sshkeys?page_size=500")).body as { data: Array<{ label: string }> }).data.map((k) => k.label);

describe("a request without Host", () => {
  test("HTTP/1.1 → 400 in the API's error shape, and the connection closes", async () => {
    const { responses, rest } = await exchange(server.port, [`GET /v4/profile HTTP/1.1\r\nAuthorization: Bearer ${server.token}\r\n\r\n`]);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(400);
    expect(responses[0]!.headers.connection).toBe("close");
    expect(json(responses[0])).toEqual(errorBody("Host header is required"));
    expect(rest).toBe("");
  });

  test("HTTP/1.0 needs none", async () => {
    const { responses } = await exchange(server.port, [`GET /v4/profile HTTP/1.0\r\nAuthorization: Bearer ${server.token}\r\n\r\n`]);
    expect(responses[0]?.status).toBe(200);
  });

  test("a write without Host is not carried out", async () => {
    const label = "no host";
    const req = rawRequest("POST", "/v4/profile/sshkeys", server.token!, { label, ssh_key: ed25519Key() }).replace("Host: localhost\r\n", "");
    const { responses } = await exchange(server.port, [req]);
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(await keyLabels()).not.toContain(label);
  });
});

describe("the Host header (RFC 9112 3.2): exactly one, host[:port]", () => {
  const get = (hostLines: string, version = "1.1") =>
    exchange(server.port, [`GET /v4/profile HTTP/${version}\r\n${hostLines}Authorization: Bearer ${server.token}\r\nConnection: close\r\n\r\n`]);

  test.each([
    ["two Host lines", "Host: localhost\r\nHost: localhost\r\n", "Only one Host header is allowed"],
    ["two different Host lines", "Host: a.example\r\nhost: b.example\r\n", "Only one Host header is allowed"],
    ["a space inside", "Host: a b\r\n", "Host header must be a host name or address, with an optional port"],
    ["userinfo", "Host: u@h\r\n", "Host header must be a host name or address, with an optional port"],
    ["a path", "Host: h/p\r\n", "Host header must be a host name or address, with an optional port"],
    ["a port that is not digits", "Host: h:80x\r\n", "Host header must be a host name or address, with an optional port"],
    ["two ports", "Host: h:80:81\r\n", "Host header must be a host name or address, with an optional port"],
    ["an unclosed IPv6 literal", "Host: [::1\r\n", "Host header must be a host name or address, with an optional port"],
    ["a literal that is no address", "Host: [zz]:80\r\n", "Host header must be a host name or address, with an optional port"],
  ])("%s → 400 in the API's error shape, and the connection closes", async (_what, lines, reason) => {
    const { responses, rest } = await get(lines);
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(responses[0]!.headers.connection).toBe("close");
    expect(json(responses[0])).toEqual(errorBody(reason));
    expect(rest).toBe("");
  });

  test.each([
    ["a name", "localhost"],
    ["a name and port", "api.example.com:8080"],
    ["an IPv4 address", "127.0.0.1:1"],
    ["an IPv6 literal", "[::1]:8080"],
    ["an empty port", "localhost:"],
    ["a percent-escape", "a%2Db"],
    ["an empty value (no authority)", ""],
  ])("%s is accepted", async (_what, host) => {
    const { responses } = await get(`Host: ${host}\r\n`);
    expect(responses.map((r) => r.status)).toEqual([200]);
  });

  test("HTTP/1.0 may leave it out, but not repeat it", async () => {
    expect((await get("", "1.0")).responses.map((r) => r.status)).toEqual([200]);
    expect((await get("Host: a\r\nHost: a\r\n", "1.0")).responses.map((r) => r.status)).toEqual([400]);
  });

  test("a write with a malformed Host is not carried out", async () => {
    const label = "bad host";
    const req = rawRequest("POST", "/v4/profile/sshkeys", server.token!, { label, ssh_key: ed25519Key() }).replace("Host: localhost\r\n", "Host: u@h\r\n");
    const { responses } = await exchange(server.port, [req]);
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(await keyLabels()).not.toContain(label);
  });
});

describe("CONNECT", () => {
  test("→ 405 JSON, then the connection closes", async () => {
    const { responses, rest, error } = await exchange(server.port, ["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"]);
    expect(error).toBeUndefined();
    expect(responses.map((r) => r.status)).toEqual([405]);
    expect(json(responses[0])).toEqual(errorBody("Method not allowed"));
    expect(responses[0]!.headers.connection).toBe("close");
    expect(rest).toBe("");
  });

  test("after a write on the same connection: the write's answer first, then the 405", async () => {
    const label = "before connect";
    const { responses } = await exchange(server.port, [
      rawRequest("POST", "/v4/profile/sshkeys", server.token!, { label, ssh_key: ed25519Key() }) +
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n",
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 405]);
    expect(json(responses[0])).toMatchObject({ label });
    expect(await keyLabels()).toContain(label);
  });
});

describe("HEAD answers carry no body", () => {
  const big = `X-Big: ${"a".repeat(20 * 1024)}\r\n`;

  test("headers too large: 431 for HEAD without a body, for GET with the JSON one", async () => {
    const head = await exchange(server.port, [`HEAD /v4/profile HTTP/1.1\r\nHost: localhost\r\n${big}\r\n`], () => true);
    expect(head.responses.map((r) => r.status)).toEqual([431]);
    expect(head.rest).toBe("");
    const get = await exchange(server.port, [`GET /v4/profile HTTP/1.1\r\nHost: localhost\r\n${big}\r\n`]);
    expect(get.responses.map((r) => r.status)).toEqual([431]);
    expect(json(get.responses[0])).toEqual(errorBody("Request headers are too large"));
    expect(get.rest).toBe("");
  });

  test("after an answered HEAD on the same connection, the 431 of the next HEAD has no body either", async () => {
    const ok = `HEAD /v4/profile HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\n\r\n`;
    const { responses, rest } = await exchange(server.port, [ok + `HEAD /v4/profile HTTP/1.1\r\nHost: localhost\r\n${big}\r\n`], () => true);
    expect(responses.map((r) => r.status)).toEqual([200, 431]);
    expect(rest).toBe("");
  });

  test("HEAD without Host, and HEAD of an unknown path: no body", async () => {
    for (const req of ["HEAD /v4/profile HTTP/1.1\r\n\r\n", "HEAD /v4/nothing-here HTTP/1.1\r\nHost: localhost\r\n\r\n"]) {
      const { responses, rest } = await exchange(
        server.port,
        [req + "GET /v4/openapi.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"],
        (i) => i === 0,
      );
      expect(responses[0]!.status).toBeGreaterThanOrEqual(400);
      // Had the HEAD answer carried a body, the next answer would not start where it is read.
      expect(rest).toBe("");
    }
  });
});

describe("an oversized body is answered 413, not reset", () => {
  test.each([
    ["chunked", true],
    ["with Content-Length", false],
  ])("%s, the client still sending", async (_what, chunked) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const count = 128; // 8 MiB, well past the 1 MiB limit: the client is still writing when the answer comes
    const framing = chunked ? "Transfer-Encoding: chunked\r\n" : `Content-Length: ${count * chunk.length}\r\n`;
    const head = `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n${framing}\r\n`;
    const parts: Array<string | Buffer> = [head];
    for (let i = 0; i < count; i++) parts.push(chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk);
    if (chunked) parts.push("0\r\n\r\n");
    const { responses, error } = await exchange(server.port, parts);
    expect(error).toBeUndefined();
    expect(responses.map((r) => r.status)).toEqual([413]);
    expect(json(responses[0])).toEqual(errorBody("Request body is too large"));
  });
});

// A chunk size past 64 bits is refused as it is read (400), not waited on until the request timeout (408).
test.each([
  ["not hexadecimal", "zz"],
  ["overflowing 64 bits", "ffffffffffffffffffff"],
  ["one past 2^64 - 1", "10000000000000000"],
])("a chunk size the parser refuses (%s), the client still sending: 400 JSON, not a reset", async (_what, size) => {
  const head = `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const parts: Array<string | Buffer> = [`${head}${size}\r\n`];
  for (let i = 0; i < 128; i++) parts.push(Buffer.alloc(64 * 1024, "a"));
  const { responses, error } = await exchange(server.port, parts);
  expect(error).toBeUndefined();
  expect(responses.map((r) => r.status)).toEqual([400]);
  expect(json(responses[0])).toEqual(errorBody("Bad request"));
});

describe("bytes that are not UTF-8 are refused, never stored as U+FFFD", () => {
  const post = (body: Buffer) =>
    exchange(server.port, [
      Buffer.concat([
        Buffer.from(
          `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
        body,
      ]),
    ]);
  const key = ed25519Key();

  test.each([
    ["a stray continuation byte", Buffer.from([0x80])],
    ["a truncated sequence", Buffer.from([0xe2, 0x82])],
    ["an overlong encoding", Buffer.from([0xc0, 0xaf])],
    ["an encoded surrogate", Buffer.from([0xed, 0xa0, 0x80])],
    ["a byte that never occurs", Buffer.from([0xff])],
  ])("%s in a string → 400 naming the field", async (_what, bad) => {
    const label = Buffer.concat([Buffer.from('{"label":"bad'), bad, Buffer.from(`","ssh_key":${JSON.stringify(key)}}`)]);
    const { responses } = await post(label);
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(json(responses[0])).toEqual(errorBody("label must be valid UTF-8 text", "label"));
    expect((await keyLabels()).filter((l) => l.startsWith("bad"))).toEqual([]);
  });

  test("outside any string, or beside a real U+FFFD → 400 naming the body", async () => {
    for (const body of [
      Buffer.concat([Buffer.from(`{"label":"x","ssh_key":${JSON.stringify(key)}}`), Buffer.from([0xff])]),
      Buffer.concat([Buffer.from(`{"label":"\ufffd`), Buffer.from([0xff]), Buffer.from(`","ssh_key":${JSON.stringify(key)}}`)]),
    ]) {
      const { responses } = await post(body);
      expect(responses.map((r) => r.status)).toEqual([400]);
      expect(json(responses[0])).toEqual(errorBody("Request body must be valid UTF-8"));
    }
  });

  /** The body as sent, for a strict JSON parser: no surrogate, escaped or raw. */
  const strictBody = (res: RawResponse | undefined) => {
    expect(res!.body).not.toMatch(/\\u[dD][89abAB]|\\u[dD][c-fC-F]|[\ud800-\udfff]/);
    return json(res);
  };

  test("a key that is not UTF-8 is named with U+FFFD for each bad sequence, never with lone surrogates", async () => {
    const body = Buffer.concat([Buffer.from('{"label":"x","k'), Buffer.from([0xff, 0xff]), Buffer.from(`":1,"ssh_key":${JSON.stringify(key)}}`)]);
    const { responses } = await post(body);
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(strictBody(responses[0])).toEqual(errorBody("k\ufffd\ufffd must be valid UTF-8 text", "k\ufffd\ufffd"));
  });

  test("a key holding an escaped lone surrogate is named with U+FFFD in its place", async () => {
    const { responses } = await post(Buffer.from(`{"label":"x","a\\ud800b":1,"ssh_key":${JSON.stringify(key)}}`));
    expect(responses.map((r) => r.status)).toEqual([400]);
    expect(strictBody(responses[0])).toEqual(errorBody("a\ufffdb must be valid Unicode text (it has a lone surrogate)", "a\ufffdb"));
  });

  test("a real U+FFFD, sent as UTF-8 or escaped, is text like any other", async () => {
    const { responses } = await post(Buffer.from(JSON.stringify({ label: "real \ufffd \\ufffd", ssh_key: key }).replace("\\\\ufffd", "\\ufffd")));
    expect(responses.map((r) => r.status)).toEqual([200]);
    expect(json(responses[0])).toMatchObject({ label: "real \ufffd \ufffd" });
  });
});

describe("an answer given before the body (401, 413) closes the connection instead of reading the body", () => {
  /**
   * Headers announcing 100 MB and the first 64 KiB of it, then nothing: the answer must come with
   * `Connection: close` and a FIN. A server that read on, to drop the body and keep the connection,
   * would wait for the rest (and answer 408 when the request timeout passed).
   */
  const early = (token: string, length: number) =>
    new Promise<{ response: RawResponse | undefined; ended: boolean }>((resolve) => {
      const socket = connect(server.port, "127.0.0.1");
      const data: Buffer[] = [];
      socket.on("data", (d: Buffer) => data.push(d));
      socket.on("error", () => {});
      socket.on("end", () => {
        socket.destroy();
        resolve({ response: splitResponses(Buffer.concat(data)).responses[0], ended: true });
      });
      socket.write(
        `POST /v4/profile/sshkeys HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(64 * 1024, "a"));
    });

  test("401: a bad token", async () => {
    const { response, ended } = await early("not-a-token", 100 * 1024 * 1024);
    expect(ended).toBe(true);
    expect(response?.status).toBe(401);
    expect(response?.headers.connection).toBe("close");
  });

  test("413: a length past the limit", async () => {
    const { response, ended } = await early(server.token!, 100 * 1024 * 1024);
    expect(ended).toBe(true);
    expect(response?.status).toBe(413);
    expect(response?.headers.connection).toBe("close");
    expect(json(response)).toEqual(errorBody("Request body is too large"));
  });
});
