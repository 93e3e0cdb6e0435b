/** @tier unit */
/**
 * Every operation of the profile area (the contract's 31 rows) against every kind of bad
 * credential, a token without the operation's scope, a read-only token, and a restricted
 * user. Authentication and scope come before anything else, so the sample bodies matter
 * only for the runs that get through.
 */
import { GrantsResponse } from "../../src/contract";
import { hashToken } from "../../src/server/auth/credentials";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { bootstrapUserId, mintFor, newActor, oauthApp } from "./actors";
import { ed25519Key } from "./sshkey-gen";
import { protectedOperations, suiteOf, unrefused } from "./bad-credentials";

const NOT_AUTHORIZED = errorBody("Your OAuth token is not authorized to use this endpoint.");

type Access = "token" | "account:read_only" | "account:read_write";
interface Op {
  method: string;
  /** `{id}` is replaced by an id of the right kind. */
  path: string;
  access: Access;
  json?: unknown;
}

const ANSWERS = { security_questions: [1, 2, 3].map((id) => ({ question_id: id, response: `answer ${id}` })) };

/** The contract's endpoint table, in its order. */
const OPS: Op[] = [
  { method: "GET", path: "/profile", access: "token" },
  { method: "PUT", path: "/profile", access: "account:read_write", json: { timezone: "Europe/Paris" } },
  { method: "GET", path: "/profile/apps", access: "account:read_only" },
  { method: "GET", path: "/profile/apps/{app}", access: "account:read_only" },
  { method: "DELETE", path: "/profile/apps/{app}", access: "account:read_write" },
  { method: "GET", path: "/profile/devices", access: "account:read_only" },
  { method: "GET", path: "/profile/devices/{device}", access: "account:read_only" },
  { method: "DELETE", path: "/profile/devices/{device}", access: "account:read_write" },
  { method: "GET", path: "/profile/grants", access: "token" },
  { method: "GET", path: "/profile/logins", access: "account:read_only" },
  { method: "GET", path: "/profile/logins/{login}", access: "account:read_only" },
  { method: "DELETE", path: "/profile/phone-number", access: "account:read_write" },
  { method: "POST", path: "/profile/phone-number", access: "account:read_write", json: { iso_code: "US", phone_number: "555-555-0100" } },
  { method: "POST", path: "/profile/phone-number/verify", access: "account:read_write", json: { otp_code: "000000x" } },
  { method: "GET", path: "/profile/preferences", access: "account:read_only" },
  { method: "PUT", path: "/profile/preferences", access: "account:read_write", json: { theme: "dark" } },
  { method: "GET", path: "/profile/security-questions", access: "account:read_only" },
  { method: "POST", path: "/profile/security-questions", access: "account:read_write", json: ANSWERS },
  { method: "GET", path: "/profile/sshkeys", access: "account:read_only" },
  { method: "POST", path: "/profile/sshkeys", access: "account:read_write", json: { label: "k", ssh_key: ed25519Key() } },
  { method: "GET", path: "/profile/sshkeys/{sshkey}", access: "account:read_only" },
  { method: "PUT", path: "/profile/sshkeys/{sshkey}", access: "account:read_write", json: { label: "renamed" } },
  { method: "DELETE", path: "/profile/sshkeys/{sshkey}", access: "account:read_write" },
  { method: "POST", path: "/profile/tfa-disable", access: "account:read_write" },
  { method: "POST", path: "/profile/tfa-enable", access: "account:read_write" },
  { method: "POST", path: "/profile/tfa-enable-confirm", access: "account:read_write", json: { tfa_code: "000000x" } },
  { method: "GET", path: "/profile/tokens", access: "account:read_only" },
  { method: "POST", path: "/profile/tokens", access: "account:read_write", json: { label: "new" } },
  { method: "GET", path: "/profile/tokens/{token}", access: "account:read_only" },
  { method: "PUT", path: "/profile/tokens/{token}", access: "account:read_write", json: { label: "renamed" } },
  { method: "DELETE", path: "/profile/tokens/{token}", access: "account:read_write" },
];

let server: TestServer;
let ids: Record<string, number>;
const fill = (path: string, with_: Record<string, number>) => path.replace(/\{(\w+)\}/g, (_m, k: string) => String(with_[k] ?? 1));
const label = (op: Op) => `${op.method} ${op.path}`;

/** An SSH key, device, login, app and spare token for `userId`. */
async function resources(userId: number): Promise<Record<string, number>> {
  const owner = await server.domain.auth.authenticate(await mintFor(server, userId, "*"));
  const key = await server.domain.sshKeys.create(owner, { ssh_key: ed25519Key(), label: "k" });
  const device = await server.domain.devices.create({ userId, userAgent: "Mozilla/5.0", remoteAddr: "192.0.2.1" });
  const login = await server.domain.logins.record({ userId, ip: "192.0.2.1" });
  const { app } = await oauthApp(server, userId);
  const token = await server.store.tokens.findByHash(hashToken(await mintFor(server, userId, "*")));
  return { sshkey: key.id, device: device.id, login: login.id, app: app.id, token: token!.id };
}

beforeAll(async () => {
  server = await startTestServer();
  ids = await resources(await bootstrapUserId(server));
});
afterAll(() => server.close());

test("the table has the contract's 31 operations", () => {
  expect(OPS).toHaveLength(31);
  expect(new Set(OPS.map(label)).size).toBe(31);
});

test("every bad credential of the catalogue → 401 Invalid Token on every profile operation in the route table", async () => {
  const ops = (await protectedOperations(server)).filter((op) => suiteOf(op.path) === "profile");
  expect(ops.length).toBe(OPS.length);
  expect(await unrefused(server, ops)).toEqual([]);
});

describe("scopes", () => {
  test("a token for another area: 401 everywhere but GET /profile and GET /profile/grants", async () => {
    const token = await mintFor(server, await bootstrapUserId(server), "events:read_write child_account:read_write");
    for (const op of OPS) {
      const res = await call(server, op.method, fill(op.path, ids), { token, json: op.json });
      if (op.access === "token") {
        expect([label(op), res.status]).toEqual([label(op), op.path === "/profile" ? 200 : 204]);
        expect(res.headers["x-accepted-oauth-scopes"]).toBe("*");
      } else {
        expect([label(op), res.status, res.body]).toEqual([label(op), 401, NOT_AUTHORIZED]);
        expect(res.headers["x-accepted-oauth-scopes"]).toBe(op.access);
      }
    }
  });

  test("account:read_only: reads pass, writes get 401 and change nothing", async () => {
    const token = await mintFor(server, await bootstrapUserId(server), "account:read_only");
    for (const op of OPS) {
      const res = await call(server, op.method, fill(op.path, ids), { token, json: op.json });
      if (op.access === "account:read_write") expect([label(op), res.status, res.body]).toEqual([label(op), 401, NOT_AUTHORIZED]);
      else expect([label(op), res.status]).toEqual([label(op), op.path === "/profile/grants" ? 204 : 200]);
    }
  });

  test("an OAuth token is checked the same way", async () => {
    const { token } = await oauthApp(server, await bootstrapUserId(server), "account:read_only");
    for (const op of OPS.filter((o) => o.access === "account:read_write")) {
      const res = await call(server, op.method, fill(op.path, ids), { token, json: op.json });
      expect([label(op), res.status]).toEqual([label(op), 401]);
    }
  });
});

describe("a restricted user", () => {
  test("runs every profile operation on their own profile; grants answer 200 with a body", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    const own = await resources(user.id);
    // What each operation answers to this user's sample request, in table order: the moves
    // the sample bodies cannot make (no code sent, no number verified...) are 400.
    const expected: Record<string, number> = {
      "DELETE /profile/phone-number": 400, // no verified number yet
      "POST /profile/phone-number/verify": 400, // wrong code
      "POST /profile/tfa-disable": 400, // not enabled
      "POST /profile/tfa-enable-confirm": 400, // wrong code
    };
    for (const op of OPS) {
      const res = await call(server, op.method, fill(op.path, own), { token, json: op.json });
      expect([label(op), res.status]).toEqual([label(op), expected[label(op)] ?? 200]);
      if (op.path === "/profile/grants") expect(GrantsResponse.parse(res.body).global.account_access).toBeNull();
    }
    // And cannot reach the bootstrap user's things.
    for (const op of OPS.filter((o) => o.path.includes("{"))) {
      const res = await call(server, op.method, fill(op.path, ids), { token, json: op.json });
      expect([label(op), res.status]).toEqual([label(op), 404]);
    }
  });
});

test("nothing above was a server error", () => {
  expect(server.logs.join("")).not.toMatch(/"status":5\d\d/);
});
