/** @tier unit */
/**
 * Issue 44, item 3: a write answers 500 only when nothing was committed. Each case lets the
 * service do its work as usual, then spoils what it hands back (a value the contract refuses, so
 * the answer cannot be shaped) or fails right after it: the failures that used to come after the
 * commit. The answer must be 500 and every table as it was (the dump compares them all); the same
 * request unspoiled then succeeds and changes the dump, so the comparison can tell.
 */
import { emptyGrants } from "../../src/contract";
import { ed25519Key } from "./sshkey-gen";
import { mintFor } from "./actors";
import { call, expectJsonError, startTestServer, type Reply, type TestServer } from "./helpers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
afterEach(() => jest.restoreAllMocks());

type Method = (...args: unknown[]) => Promise<unknown>;

/** The next call of `target[method]` runs as it would, then its result goes through `spoil`. */
function spoilNext(target: object, method: string, spoil: (result: unknown) => unknown): jest.SpyInstance {
  const methods = target as Record<string, Method>;
  const original = methods[method]!.bind(target);
  return jest.spyOn(methods, method).mockImplementationOnce(async (...args: unknown[]) => spoil(await original(...args)));
}

const failAfter = (): never => {
  throw new Error("failed after the service's work");
};
const admin = (method: string, path: string, json?: unknown): Promise<Reply> =>
  call(server, method, `//__admin${path}`, { token: server.adminToken, ...(json === undefined ? {} : { json }) });

let made = 0;
/** A fresh name for each object a case makes. */
const fresh = (prefix: string) => `${prefix}-${++made}`;

async function newKey(): Promise<number> {
  const res = await call(server, "POST", "/profile/sshkeys", { json: { label: fresh("key"), ssh_key: ed25519Key() } });
  expect(res.status).toBe(200);
  return (res.body as { id: number }).id;
}
async function newClient(): Promise<string> {
  const res = await call(server, "POST", "/account/oauth-clients", { json: { label: fresh("app"), redirect_uri: "https://app.example.com/cb" } });
  expect(res.status).toBe(200);
  return (res.body as { id: string }).id;
}
async function newTag(): Promise<string> {
  const label = fresh("tag");
  expect((await call(server, "POST", "/tags", { json: { label } })).status).toBe(200);
  return label;
}
async function newRestrictedUser(): Promise<number> {
  const res = await admin("POST", "/users", { username: fresh("restricted"), email: "r@example.com", restricted: true });
  expect(res.status).toBe(200);
  return (res.body as { user: { id: number } }).user.id;
}

interface Case {
  name: string;
  /** Makes what the request needs; answers the request. */
  request(): Promise<() => Promise<Reply>>;
  /** Spoils the step after which the request used to fail past its commit. */
  spoil(): jest.SpyInstance;
}

const d = () => server.domain;
const cases: Case[] = [
  {
    name: "POST /profile/sshkeys",
    request: async () => () => call(server, "POST", "/profile/sshkeys", { json: { label: fresh("key"), ssh_key: ed25519Key() } }),
    spoil: () => spoilNext(d().sshKeys, "create", (key) => ({ ...(key as object), label: 42 })),
  },
  {
    name: "PUT /profile/sshkeys/:id",
    request: async () => {
      const id = await newKey();
      return () => call(server, "PUT", `/profile/sshkeys/${id}`, { json: { label: fresh("renamed") } });
    },
    spoil: () => spoilNext(d().sshKeys, "update", (key) => ({ ...(key as object), created: null })),
  },
  {
    name: "DELETE /profile/sshkeys/:id",
    request: async () => {
      const id = await newKey();
      return () => call(server, "DELETE", `/profile/sshkeys/${id}`);
    },
    spoil: () => spoilNext(d().sshKeys, "delete", failAfter),
  },
  {
    name: "POST /profile/tokens",
    request: async () => () => call(server, "POST", "/profile/tokens", { json: { label: fresh("token") } }),
    spoil: () =>
      spoilNext(d().tokens, "create", (minted) => {
        const { record, token } = minted as { record: object; token: string };
        return { record: { ...record, scopes: 7 }, token };
      }),
  },
  {
    name: "POST /account/oauth-clients",
    request: async () => () => call(server, "POST", "/account/oauth-clients", { json: { label: fresh("app"), redirect_uri: "https://app.example.com/cb" } }),
    spoil: () =>
      spoilNext(d().oauth, "register", (made) => {
        const { client, secret } = made as { client: object; secret: string };
        return { client: { ...client, status: "no such status" }, secret };
      }),
  },
  {
    name: "POST /account/oauth-clients/:id/reset-secret",
    request: async () => {
      const id = await newClient();
      return () => call(server, "POST", `/account/oauth-clients/${id}/reset-secret`);
    },
    spoil: () =>
      spoilNext(d().oauth, "resetSecret", (reset) => {
        const { client } = reset as { client: object };
        return { client, secret: 42 };
      }),
  },
  {
    name: "POST /tags",
    request: async () => () => call(server, "POST", "/tags", { json: { label: fresh("tag") } }),
    spoil: () => spoilNext(d().tags, "create", () => ({ label: 42 })),
  },
  {
    name: "DELETE /tags/:label",
    request: async () => {
      const label = await newTag();
      return () => call(server, "DELETE", `/tags/${label}`);
    },
    spoil: () => spoilNext(d().tags, "delete", failAfter),
  },
  {
    name: "PUT /profile",
    request: async () => () => call(server, "PUT", "/profile", { json: { timezone: "Europe/Paris" } }),
    spoil: () => spoilNext(d().profile, "update", (user) => ({ ...(user as object), email: 42 })),
  },
  {
    name: "PUT /account",
    request: async () => () => call(server, "PUT", "/account", { json: { company: fresh("company") } }),
    spoil: () =>
      spoilNext(d().accountDetails, "update", (view) => {
        const v = view as { account: object };
        return { ...v, account: { ...v.account, euuid: 42 } };
      }),
  },
  {
    // Three writes of one request (the user, then the token): the second failing must take the first back too.
    name: "POST /__admin/users (with a token)",
    request: async () => () => admin("POST", "/users", { username: fresh("user"), email: "u@example.com", token: { label: "theirs" } }),
    spoil: () => spoilNext(d().tokens, "mint", failAfter),
  },
  {
    name: "PUT /__admin/users/:id/grants",
    request: async () => {
      const id = await newRestrictedUser();
      return () => admin("PUT", `/users/${id}/grants`, { ...emptyGrants(), global: { ...emptyGrants().global, add_domains: true } });
    },
    // The answer reads the grants back: a stored value that does not parse.
    spoil: () => spoilNext(server.store.grants, "get", () => "{not json"),
  },
];

describe.each(cases)("$name", ({ request, spoil }) => {
  it("answers 500 and commits nothing when its answer fails after the work, and commits when it does not", async () => {
    const send = await request();
    const before = await server.store.dump();
    const spoiled = spoil();
    expectJsonError(await send(), 500);
    // The service did its work (and, before the guarantee, committed it) before the answer failed.
    expect(spoiled).toHaveBeenCalledTimes(1);
    expect(await server.store.dump()).toEqual(before);

    const res = await send();
    expect(res.status).toBe(200);
    expect(await server.store.dump()).not.toEqual(before);
  });
});

// The named exceptions (`RouteDoc.ownCommit`): cancel and accept store what they found, then refuse; run in the
// request's transaction, the refusal would take that back with it.
describe("a transfer's refusals keep what they stored", () => {
  let receiver: string;
  let receiverAccount: number;
  beforeAll(async () => {
    const account = await server.store.accounts.insert({ euuid: "RECEIVER-ACCT", active_since: "2025-01-01T00:00:00" });
    receiverAccount = account.id;
    const user = await server.domain.users.create({ username: "receiver", email: "r@example.com", accountId: account.id });
    receiver = await mintFor(server, user.id);
  });

  async function offer(): Promise<{ compute: number; token: string }> {
    const compute = (await server.domain.objects.seedCompute({ label: fresh("web") })).id;
    const res = await call(server, "POST", "/account/entity-transfers", { json: { entities: { computes: [compute] } } });
    expect(res.status).toBe(200);
    return { compute, token: (res.body as { token: string }).token };
  }
  const stored = async (token: string) => (await server.store.transfers.get(token))?.status;

  it("accepting a transfer whose compute left the sender is refused, and the transfer stays failed", async () => {
    const t = await offer();
    await server.store.objects.setAccount("compute", t.compute, receiverAccount, "2025-03-01T12:00:00");
    expectJsonError(await call(server, "POST", `/account/entity-transfers/${t.token}/accept`, { token: receiver }), 400);
    expect(await stored(t.token)).toBe("failed");
  });

  // Last: it moves the shared server's clock a day on.
  it("accepting or canceling an expired transfer is refused, and the transfer stays stale", async () => {
    const accepted = await offer();
    const canceled = await offer();
    server.clock.advance(24 * 3600 * 1000);
    expectJsonError(await call(server, "POST", `/account/entity-transfers/${accepted.token}/accept`, { token: receiver }), 400);
    expectJsonError(await call(server, "DELETE", `/account/entity-transfers/${canceled.token}`), 400);
    expect(await stored(accepted.token)).toBe("stale");
    expect(await stored(canceled.token)).toBe("stale");
  });
});
