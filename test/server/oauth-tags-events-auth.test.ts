/**
 * Every operation of the OAuth-client, tag, event and entity-transfer areas against every kind
 * of bad credential (401) and a token without the operation's scope (403). The public
 * thumbnail `GET` needs no token at all.
 */
import { hashToken } from "../../src/server/areas/tokens/service";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { at, bootstrapUserId, mintFor } from "./actors";

const INVALID_TOKEN = errorBody("Invalid Token");
const NOT_AUTHORIZED = errorBody("Your OAuth token is not authorized to use this endpoint.");
const TOKEN = "123E4567-E89B-12D3-A456-426614174000";

interface Op {
  method: string;
  path: string;
  scope: string;
  json?: unknown;
  /** A scope that is not enough. */
  wrong: string;
}

const OPS: Op[] = [
  { method: "GET", path: "/account/events", scope: "events:read_only", wrong: "account:read_write" },
  { method: "GET", path: "/account/events/1", scope: "events:read_only", wrong: "account:read_write" },
  { method: "POST", path: "/account/events/1/read", scope: "events:read_only", wrong: "account:read_write" },
  { method: "POST", path: "/account/events/1/seen", scope: "events:read_only", wrong: "account:read_write" },
  { method: "GET", path: "/account/oauth-clients", scope: "account:read_only", wrong: "events:read_write" },
  {
    method: "POST",
    path: "/account/oauth-clients",
    scope: "account:read_write",
    wrong: "account:read_only",
    json: { label: "x", redirect_uri: "https://a.example" },
  },
  { method: "GET", path: "/account/oauth-clients/abc", scope: "account:read_only", wrong: "events:read_write" },
  { method: "PUT", path: "/account/oauth-clients/abc", scope: "account:read_write", wrong: "account:read_only", json: { label: "x" } },
  { method: "DELETE", path: "/account/oauth-clients/abc", scope: "account:read_write", wrong: "account:read_only" },
  { method: "POST", path: "/account/oauth-clients/abc/reset-secret", scope: "account:read_write", wrong: "account:read_only" },
  { method: "PUT", path: "/account/oauth-clients/abc/thumbnail", scope: "account:read_write", wrong: "account:read_only" },
  { method: "GET", path: "/tags", scope: "account:read_only", wrong: "events:read_write" },
  { method: "POST", path: "/tags", scope: "account:read_write", wrong: "account:read_only", json: { label: "abc" } },
  { method: "GET", path: "/tags/abc", scope: "account:read_only", wrong: "events:read_write" },
  { method: "DELETE", path: "/tags/abc", scope: "account:read_write", wrong: "account:read_only" },
  { method: "GET", path: "/account/entity-transfers", scope: "account:read_only", wrong: "events:read_write" },
  { method: "POST", path: "/account/entity-transfers", scope: "account:read_write", wrong: "account:read_only", json: { entities: { computes: [1] } } },
  { method: "GET", path: `/account/entity-transfers/${TOKEN}`, scope: "account:read_only", wrong: "events:read_write" },
  { method: "DELETE", path: `/account/entity-transfers/${TOKEN}`, scope: "account:read_write", wrong: "account:read_only" },
  { method: "POST", path: `/account/entity-transfers/${TOKEN}/accept`, scope: "account:read_write", wrong: "account:read_only" },
];

let server: TestServer;
const bad: Record<string, string | null> = {};
const wrongScope: Record<string, string> = {};
const rightScope: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  const userId = await bootstrapUserId(server);
  bad.none = null;
  bad.unknown = "f".repeat(64);
  bad.malformed = "not a token!";
  const revoked = await mintFor(server, userId);
  const record = await server.store.tokens.findByHash(hashToken(revoked));
  await server.store.tokens.revoke(record!.id, at(server, 0));
  bad.revoked = revoked;
  bad.expired = await mintFor(server, userId, "*", at(server, 1000));
  for (const op of OPS) {
    wrongScope[op.wrong] ??= await mintFor(server, userId, op.wrong);
    rightScope[op.scope] ??= await mintFor(server, userId, op.scope);
  }
  server.clock.advance(2000);
});
afterAll(() => server.close());

describe.each(OPS)("$method $path", (op) => {
  it.each(["none", "unknown", "malformed", "revoked", "expired"])("401 with %s credentials", async (kind) => {
    const res = await call(server, op.method, op.path, { token: bad[kind], json: op.json });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
  });

  it(`401 without ${op.scope}`, async () => {
    const res = await call(server, op.method, op.path, { token: wrongScope[op.wrong], json: op.json });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NOT_AUTHORIZED);
    expect(res.headers["x-accepted-oauth-scopes"]).toBe(op.scope);
  });

  it(`gets through with ${op.scope} (no 401/403, no 5xx)`, async () => {
    const res = await call(server, op.method, op.path, { token: rightScope[op.scope], json: op.json });
    expect([200, 400, 404]).toContain(res.status);
  });
});

it("the thumbnail GET is public", async () => {
  const res = await call(server, "GET", "/account/oauth-clients/abc/thumbnail", { token: null });
  expect(res.status).toBe(404);
  expect(res.body).toEqual(errorBody("Not found"));
});
