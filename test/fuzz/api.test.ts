/** @tier unit */
/**
 * Property-based fuzzing of every operation of `GET /v4/openapi.json`, on the store under test
 * (SQLite in the `default` jest project, Postgres in `server-postgres`): for every request,
 * malformed or not, the answer is never a 5xx, every error is the contract's JSON error body,
 * and a refused request (4xx) leaves every row of every table as it was.
 *
 * Seeded and short by default (2,000 requests); `MGMT_FUZZ_RUNS=50000` runs longer,
 * `MGMT_FUZZ_SEED=n` tries another seed. A request that moved the store's change mark (see
 * `Store.changeMark`) has every row of every table compared with the state before it.
 *
 * The store's state carries over from request to request (successful requests change it), so a
 * failure is reported as the one request that broke the property, with the seed and the run it
 * came at, instead of shrinking over a state that has moved on.
 */
import fc from "fast-check";
import { request } from "undici";
import { ErrorBody } from "../../src/contract";
import { call, startTestServer, type TestServer } from "../server/helpers";
import { ed25519Key, rsaKey } from "../server/sshkey-gen";
import { operationsOf, requestArbitrary, type FuzzRequest, type Knowns, type Operation } from "./requests";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Whether a parsed JSON answer holds a surrogate that is not half of a pair (strict parsers refuse its escape). */
const unpaired = (v: unknown): boolean =>
  typeof v === "string"
    ? LONE_SURROGATE.test(v)
    : typeof v === "object" && v !== null && Object.entries(v).some(([k, inner]) => LONE_SURROGATE.test(k) || unpaired(inner));

const RUNS = Number(process.env.MGMT_FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.MGMT_FUZZ_SEED ?? 11_2026);

let server: TestServer;
let ops: Operation[];
let knowns: Knowns;

/** Where the values of each path parameter can be listed, and the field naming an object. */
function collections(all: readonly Operation[]): Array<{ param: string; list: string }> {
  const out: Array<{ param: string; list: string }> = [];
  for (const op of all) {
    const m = /^(.*)\/\{([^}]+)\}$/.exec(op.path);
    if (op.method !== "GET" || m === null) continue;
    if (all.some((o) => o.method === "GET" && o.path === m[1])) out.push({ param: m[2]!, list: m[1]! });
  }
  return out;
}

const NAMING_FIELDS = ["id", "label", "username", "token", "euuid", "region"];

async function learn(token: string): Promise<Knowns> {
  const values: Record<string, string[]> = {};
  for (const { param, list } of collections(ops)) {
    const res = await call(server, "GET", `${list}?page_size=500`, { token });
    const data = (res.body as { data?: Array<Record<string, unknown>> } | undefined)?.data ?? [];
    values[param] = data
      .map((item) => NAMING_FIELDS.map((f) => item[f]).find((v) => typeof v === "string" || typeof v === "number"))
      .filter((v) => v !== undefined)
      .map(String)
      .slice(0, 20);
  }
  // The acting token is left out of the ones to revoke, so that most requests stay authenticated.
  const self = (await call(server, "GET", "/profile/tokens?page_size=500", { token })).body as { data?: Array<{ id: number; token?: string }> };
  values.tokenId = (self.data ?? []).filter((t) => !token.startsWith(String(t.token))).map((t) => String(t.id));
  const minted = await call(server, "POST", "/profile/tokens", { token, json: { label: "fuzz read-only", scopes: "account:read_only" } });
  return {
    values,
    token,
    readOnlyToken: (minted.body as { token: string }).token,
    sshKeys: knowns?.sshKeys ?? [ed25519Key(), ed25519Key("fuzz@host"), rsaKey(), "ssh-ed25519 AAAA", "not a key"],
  };
}

async function send(r: FuzzRequest) {
  const res = await request(server.url.replace(/\/v4$/, "") + r.path, { method: r.method as "GET", headers: r.headers, body: r.body });
  const text = await res.body.text();
  return { status: res.statusCode, type: String(res.headers["content-type"] ?? ""), text };
}

/** A fresh bootstrap when the fuzzer has cancelled the account or revoked the acting token. */
async function recoverIfLockedOut(): Promise<boolean> {
  if ((await call(server, "GET", "/profile", { token: knowns.token })).status === 200) return false;
  const res = await request(`${server.adminUrl}/reset`, { method: "POST", headers: { authorization: `Bearer ${server.adminToken}` } });
  const { token } = (await res.body.json()) as { token: string };
  knowns = await learn(token);
  return true;
}

beforeAll(async () => {
  // The lived-in account: objects of every kind for path parameters to name.
  server = await startTestServer({ defaultFixtures: true });
  const doc = (await call(server, "GET", "/openapi.json", { token: null })).body as Record<string, unknown>;
  ops = operationsOf(doc);
  knowns = await learn(server.token!);
});
afterAll(() => server.close());

test("the OpenAPI document lists the operations the fuzzer covers", () => {
  expect(ops.length).toBeGreaterThan(60);
  // Only the operations that read a body document one (bodiless POSTs such as reset-secret do not).
  expect(ops.filter((o) => o.body !== undefined).length).toBeGreaterThan(15);
  expect(Object.keys(knowns.values).length).toBeGreaterThan(10);
});

test(
  `${RUNS} malformed requests over every operation: no 5xx, JSON errors, refused requests change nothing`,
  async () => {
    const dump = () => server.store.dump!();
    const mark = () => server.store.changeMark!();
    let before = await dump();
    let lastMark = await mark();
    let dumps = 0;
    const started = Date.now();
    const statuses = new Map<number, number>();
    const covered = new Set<string>();
    let run = 0;

    await fc.assert(
      fc.asyncProperty(
        requestArbitrary(ops, () => knowns),
        async (r) => {
          run++;
          const res = await send(r);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          covered.add(r.op);
          const where = `run ${run} (seed ${SEED}): ${r.method} ${r.path} headers=${JSON.stringify(r.headers)} body=${JSON.stringify(String(r.body ?? "")).slice(0, 300)}\n→ ${res.status} ${res.text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx at ${where}`);
          if (res.status >= 400 && r.method !== "HEAD") {
            if (!res.type.startsWith("application/json")) throw new Error(`non-JSON error at ${where}`);
            const parsed = ErrorBody.safeParse(JSON.parse(res.text));
            if (!parsed.success) throw new Error(`error body not the contract's at ${where}`);
            if (unpaired(parsed.data)) throw new Error(`a lone surrogate in the error body at ${where}`);
          } else if (res.status !== 204 && r.method !== "HEAD" && !r.op.endsWith("/thumbnail")) {
            // Success answers are JSON too (a thumbnail's are its image; 204 has no body).
            if (!res.type.startsWith("application/json")) throw new Error(`non-JSON answer at ${where}`);
            JSON.parse(res.text);
          }
          // An unmoved mark proves nothing was written; otherwise compare every row.
          const now = await mark();
          if (now === lastMark) return;
          dumps++;
          const after = await dump();
          if (res.status >= 400) {
            expect({ where, tables: after }).toEqual({ where, tables: before });
          } else {
            before = after;
            if (r.method !== "GET" && r.method !== "HEAD" && (await recoverIfLockedOut())) before = await dump();
          }
          lastMark = await mark();
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );

    // Every operation was tried, and the answers were mostly refusals of many kinds.
    expect([...covered].sort()).toEqual(ops.map((o) => `${o.method} ${o.path}`).sort());
    expect([400, 401, 403, 404, 405].every((s) => (statuses.get(s) ?? 0) > 0)).toBe(true);
    console.log(
      `fuzz (${process.env.MGMT_TEST_STORE ?? "sqlite"}): ${run} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${dumps} full comparisons, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
    // A generous bound that grows with MGMT_FUZZ_RUNS (a request and a dump take a few ms).
  },
  Math.max(60_000, RUNS * 60),
);
