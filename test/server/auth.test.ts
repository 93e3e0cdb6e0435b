/** @tier unit */
/** Bearer authentication and scopes over real HTTP; scope parsing; tokens never in the log. */
import { Profile, SshKey, formatTimestamp } from "../../src/contract";
import { Scopes } from "../../src/contract/scopes";
import { hashToken } from "../../src/server/auth/credentials";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { ed25519Key } from "./sshkey-gen";
import { BAD_CREDENTIALS } from "./bad-credentials";

const INVALID_TOKEN = errorBody("Invalid Token");
const NOT_AUTHORIZED = errorBody("Your OAuth token is not authorized to use this endpoint.");

let server: TestServer;
let keyId: number;
const tokensSeen: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  tokensSeen.push(server.token!);
  keyId = SshKey.parse((await call(server, "POST", "/profile/sshkeys", { json: { label: "k", ssh_key: ed25519Key() } })).body).id;
});
afterAll(() => server.close());

async function mint(scopes: string, expiry: string | null = null): Promise<string> {
  const user = (await server.domain.auth.authenticate(server.token!)).user;
  const parsed = Scopes.parse(scopes);
  if (!parsed.ok) throw new Error(parsed.reason);
  const { token } = await server.domain.tokens.mint({ userId: user.id, label: scopes, scopes: parsed.scopes, expiry });
  tokensSeen.push(token);
  return token;
}

describe("authentication", () => {
  test("the bootstrap token reads the profile", async () => {
    const res = await call(server, "GET", "/profile");
    expect(res.status).toBe(200);
    const profile = Profile.parse(res.body);
    expect(profile).toMatchObject({ username: "admin", restricted: false, authentication_type: "password" });
    expect(res.headers["x-oauth-scopes"]).toBe("*");
  });

  // The auth suites' one catalogue; here on a key that exists, so a path that would answer is refused first.
  test.each(BAD_CREDENTIALS.map((c) => [c.kind, c] as const))("%s → 401 Invalid Token", async (_kind, credential) => {
    const h = await credential.headers(server);
    for (const [method, path] of [
      ["GET", "/profile"],
      ["GET", "/profile/sshkeys"],
      ["GET", `/profile/sshkeys/${keyId}`],
      ["DELETE", `/profile/sshkeys/${keyId}`],
    ]) {
      const res = await call(server, method!, path!, { token: null, headers: h });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID_TOKEN);
    }
  });

  test("the scheme is case-insensitive", async () => {
    expect((await call(server, "GET", "/profile", { token: null, headers: { authorization: `bearer ${server.token}` } })).status).toBe(200);
  });

  test("a revoked token is refused at once", async () => {
    const token = await mint("*");
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    const actor = await server.domain.auth.authenticate(token);
    await server.domain.tokens.revoke(actor, actor.token.id);
    const res = await call(server, "GET", "/profile", { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    // Revoking again: the token is gone.
    await expect(server.domain.tokens.revoke(actor, actor.token.id)).rejects.toMatchObject({ kind: "not_found" });
  });

  test("an expired token is refused from its expiry on", async () => {
    const expiry = formatTimestamp(new Date(server.clock.now().getTime() + 3_600_000));
    const token = await mint("*", expiry);
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    server.clock.advance(3_599_000);
    expect((await call(server, "GET", "/profile/sshkeys", { token })).status).toBe(200);
    server.clock.advance(1_000);
    const res = await call(server, "GET", "/profile/sshkeys", { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
    // The bootstrap token has no expiry.
    expect((await call(server, "GET", "/profile")).status).toBe(200);
  });

  test("authentication comes before reading the body", async () => {
    const res = await call(server, "POST", "/profile/sshkeys", { token: null, body: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
  });

  test("tokens are looked up by their SHA-256 hash", async () => {
    const record = await server.store.tokens.findByHash(hashToken(server.token!));
    expect(record).toMatchObject({ token_prefix: server.token!.slice(0, 16), scopes: "*", revoked: null, expiry: null });
  });
});

describe("scopes", () => {
  test("account:read_only reads but cannot write", async () => {
    const token = await mint("account:read_only");
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    const list = await call(server, "GET", "/profile/sshkeys", { token });
    expect(list.status).toBe(200);
    expect(list.headers["x-oauth-scopes"]).toBe("account:read_only");
    expect(list.headers["x-accepted-oauth-scopes"]).toBe("account:read_only");
    expect((await call(server, "GET", `/profile/sshkeys/${keyId}`, { token })).status).toBe(200);

    const writes: Array<[string, string, unknown]> = [
      ["POST", "/profile/sshkeys", { label: "x", ssh_key: ed25519Key() }],
      ["PUT", `/profile/sshkeys/${keyId}`, { label: "x" }],
      ["DELETE", `/profile/sshkeys/${keyId}`, undefined],
    ];
    for (const [method, path, json] of writes) {
      const res = await call(server, method, path, { token, json });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_AUTHORIZED);
      expect(res.headers["x-accepted-oauth-scopes"]).toBe("account:read_write");
    }
    // Nothing changed.
    expect(SshKey.parse((await call(server, "GET", `/profile/sshkeys/${keyId}`)).body).label).toBe("k");
  });

  test("the scope check comes before body validation", async () => {
    const token = await mint("account:read_only");
    const res = await call(server, "POST", "/profile/sshkeys", { token, body: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
  });

  test("account:read_write implies account:read_only", async () => {
    const token = await mint("account:read_write");
    expect((await call(server, "GET", "/profile/sshkeys", { token })).status).toBe(200);
    expect((await call(server, "PUT", `/profile/sshkeys/${keyId}`, { token, json: { label: "k" } })).status).toBe(200);
  });

  test("a token for another area reads the profile but not the SSH keys", async () => {
    const token = await mint("events:read_write");
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    const res = await call(server, "GET", "/profile/sshkeys", { token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NOT_AUTHORIZED);
  });

  describe("parsing", () => {
    const parse = (text: string) => {
      const p = Scopes.parse(text);
      if (!p.ok) throw new Error(p.reason);
      return p.scopes;
    };

    test("* allows everything", () => {
      expect(parse("*").allows("account:read_write")).toBe(true);
      expect(parse(" * ").isAll).toBe(true);
    });

    test("read_write implies read_only; areas are separate", () => {
      const s = parse("account:read_write events:read_only");
      expect(s.allows("account:read_only")).toBe(true);
      expect(s.allows("account:read_write")).toBe(true);
      expect(s.allows("events:read_only")).toBe(true);
      expect(s.allows("events:read_write")).toBe(false);
      expect(s.allows("child_account:read_only")).toBe(false);
    });

    test("the strongest access per area wins and prints canonically", () => {
      expect(parse("account:read_write  account:read_only").toString()).toBe("account:read_write");
      expect(parse("account:read_only account:read_write").toString()).toBe("account:read_write");
    });

    test("covers: a token may not exceed its creator", () => {
      expect(parse("*").covers(parse("account:read_write"))).toBe(true);
      expect(parse("account:read_write").covers(parse("account:read_only"))).toBe(true);
      expect(parse("account:read_only").covers(parse("account:read_write"))).toBe(false);
      expect(parse("account:read_write").covers(parse("*"))).toBe(false);
    });

    test.each(["", "   ", "account", "account:write", "Account:read_only", "* account:read_only", "account:read_only,events:read_only"])(
      "%p is refused",
      (text) => {
        expect(Scopes.parse(text).ok).toBe(false);
      },
    );
  });
});

// Runs last: every request above has been logged by now.
test("no token value ever reaches the log, and nothing above was a server error", () => {
  const log = server.logs.join("");
  expect(log).toContain('"msg":"request"');
  expect(tokensSeen.length).toBeGreaterThan(5);
  for (const token of tokensSeen) expect(log).not.toContain(token);
  expect(log).not.toContain('"level":"error"');
  expect(log).not.toMatch(/"status":5\d\d/);
});
