/** @tier unit */
/**
 * Every operation the OpenAPI document lists without a request body runs with an empty body
 * whatever content type the client put on it (clients such as the upstream JS SDK send a form
 * content type on bodiless POSTs), however the emptiness is framed; the operations with a body
 * document it. Walks `GET /v4/openapi.json`, so an operation added later is covered too.
 */
import { errorBody, rawHttp, startTestServer, type TestServer } from "./helpers";

// A server per test: the walk deletes what its ids name, the server's own token included.
let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

interface Operation {
  method: string;
  path: string;
  requestBody?: { required: boolean };
}

async function operations(): Promise<Operation[]> {
  const res = await fetch(`${server.url}/openapi.json`);
  const doc = (await res.json()) as { paths: Record<string, Record<string, { requestBody?: { required: boolean } }>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, requestBody: op.requestBody })),
  );
}

/** A concrete path: ids are 1, other parameters a plausible text. */
const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => (/id$/i.test(name) ? "1" : "x"));

const FRAMINGS: Array<[string, (type: string) => string, string]> = [
  ["Content-Length: 0", (type) => `Content-Type: ${type}\r\nContent-Length: 0\r\n`, ""],
  ["chunked, zero bytes", (type) => `Content-Type: ${type}\r\nTransfer-Encoding: chunked\r\n`, "0\r\n\r\n"],
  ["nothing declared to follow", (type) => `Content-Type: ${type}\r\n`, ""],
];

async function send(method: string, path: string, headers: string, body: string): Promise<{ status: number; body: unknown }> {
  const text = await rawHttp(server.port, [
    `${method} /v4${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.token}\r\nConnection: close\r\n${headers}\r\n${body}`,
  ]);
  const split = text.indexOf("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(split + 4));
  } catch {
    parsed = undefined;
  }
  return { status, body: parsed };
}

const reasons = (body: unknown) => ((body as { errors?: Array<{ reason: string }> } | undefined)?.errors ?? []).map((e) => e.reason);

test("every operation without a documented body runs with an empty one, whatever its content type", async () => {
  const bodiless = (await operations()).filter((op) => op.requestBody === undefined);
  // The bodiless writes real clients send with a form content type are among them.
  const names = bodiless.map((op) => `${op.method} ${op.path}`);
  expect(names).toEqual(
    expect.arrayContaining([
      "POST /account/child-accounts/{euuid}/token",
      "POST /account/oauth-clients/{clientId}/reset-secret",
      "POST /account/events/{eventId}/read",
      "DELETE /profile/sshkeys/{sshKeyId}",
    ]),
  );
  const refused: string[] = [];
  for (const op of bodiless) {
    for (const type of ["application/x-www-form-urlencoded", "text/plain", "application/json"]) {
      for (const [framing, headers, body] of FRAMINGS) {
        const res = await send(op.method, concrete(op.path), headers(type), body);
        const about = reasons(res.body).filter((r) => /content-type|request body/i.test(r));
        if (res.status === 415 || res.status >= 500 || res.status === 0 || about.length > 0) {
          refused.push(`${op.method} ${op.path} (${type}, ${framing}): ${res.status} ${about.join("; ")}`);
        }
      }
    }
  }
  expect(refused).toEqual([]);
});

test("every POST and PUT that reads a body documents it, and asks for it when it is missing", async () => {
  const withBody = (await operations()).filter((op) => op.requestBody !== undefined);
  expect(withBody.map((op) => op.method).every((m) => m === "POST" || m === "PUT")).toBe(true);
  // The thumbnail takes an image, not JSON; a body documented as optional is not asked for.
  for (const op of withBody.filter((o) => !o.path.endsWith("/thumbnail") && o.requestBody!.required)) {
    const res = await send(op.method, concrete(op.path), "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n", "");
    // A missing object may be found missing before the body is looked at; otherwise the body is read as
    // an empty object, as upstream does, and each field that lacks is named (the body itself asked for
    // only where an empty object lacks nothing).
    if (res.status === 404) continue;
    expect([`${op.method} ${op.path}`, res.status]).toEqual([`${op.method} ${op.path}`, 400]);
    const items = (res.body as { errors: { field?: string; reason: string }[] }).errors;
    const named = items.every((i) => i.field !== undefined && i.reason.startsWith(i.field));
    if (!named) expect([`${op.method} ${op.path}`, res.body]).toEqual([`${op.method} ${op.path}`, errorBody("Request body is required")]);
  }
});

test("an empty body of any content type is no body", async () => {
  const form = await send(
    "POST",
    "/account/child-accounts/X/token",
    "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n",
    "0\r\n\r\n",
  );
  expect(form).toEqual({ status: 404, body: errorBody("Not found") });
});

test("an operation that takes no body ignores whatever body and content type it is sent", async () => {
  const euuid = "A1B2C3D4-0000-4000-A000-00000000000B";
  await server.domain.childAccounts.seedChild({ euuid });
  // What the upstream JS SDK sends: the euuid, form-encoded, on the bodiless token mint.
  const form = `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${euuid.length}\r\n`;
  expect((await send("POST", `/account/child-accounts/${euuid}/token`, form, euuid)).status).toBe(200);
  const bodies: Array<[string, string]> = [
    ["Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n", "1\r\na\r\n0\r\n\r\n"],
    ["Content-Type: application/json\r\nContent-Length: 5\r\n", "{nope"],
    ["Content-Type: ;;;\r\nContent-Length: 3\r\n", "abc"],
    ["Content-Length: 3\r\n", "abc"],
  ];
  for (const [headers, body] of bodies) {
    expect(await send("POST", `/account/child-accounts/${euuid}/token`, headers, body)).toMatchObject({ status: 200, body: { scopes: "*" } });
  }
  // The size limit still holds: the bytes are read before they are dropped.
  const big = "x".repeat(1024 * 1024 + 1);
  const tooLarge = await send("POST", `/account/child-accounts/${euuid}/token`, `Content-Type: text/plain\r\nContent-Length: ${big.length}\r\n`, big);
  expect(tooLarge).toEqual({ status: 413, body: errorBody("Request body is too large") });
});

test("a body sent to an operation that reads one must still be JSON", async () => {
  const filled = await send("POST", "/profile/sshkeys", "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n", "1\r\na\r\n0\r\n\r\n");
  expect(filled).toEqual({ status: 400, body: errorBody("Content-Type must be application/json") });
});
