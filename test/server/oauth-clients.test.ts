/** @tier unit */
/** `/account/oauth-clients`: registration, secrets, deletion (and its tokens), thumbnails, grants, events. */
import type { GrantsResponse } from "../../src/contract";
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { mintFor, newActor } from "./actors";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("rest of a png")]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from("jfif")]);
const GIF = Buffer.from("GIF89a....");

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const create = (json: unknown, token?: string) => call(server, "POST", "/account/oauth-clients", { json, token });
const put = (id: string, body: Buffer | string, type: string | null, token?: string) =>
  call(server, "PUT", `/account/oauth-clients/${id}/thumbnail`, { body, token, headers: type === null ? {} : { "content-type": type } });

async function newClient(label = "my app"): Promise<{ id: string; secret: string }> {
  const res = await create({ label, redirect_uri: "https://app.example.com/callback" });
  expect(res.status).toBe(200);
  return res.body as { id: string; secret: string };
}

describe("create, read, update", () => {
  it("creates a private client with its secret in plaintext, once", async () => {
    const res = await create({ label: "my app", redirect_uri: "https://app.example.com/cb" });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{20}$/),
      label: "my app",
      public: false,
      redirect_uri: "https://app.example.com/cb",
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      status: "active",
      thumbnail_url: null,
    });
    const view = await call(server, "GET", `/account/oauth-clients/${String(body.id)}`);
    expect(view.body).toEqual({ ...body, secret: "<REDACTED>" });
    const list = await call(server, "GET", "/account/oauth-clients");
    expect((list.body as { data: Array<Record<string, unknown>> }).data).toContainEqual({ ...body, secret: "<REDACTED>" });
    // Stored hashed: the secret itself is nowhere in the store.
    const stored = await server.store.oauthClients.getByPublicId(String(body.id));
    expect(stored?.secret_hash).not.toBe(body.secret);
    expect(await server.domain.oauth.checkSecret(String(body.id), String(body.secret))).toBe(true);
  });

  it("accepts public: true", async () => {
    const res = await create({ label: "spa", public: true, redirect_uri: "http://localhost:3000/cb" });
    expect(res.body).toMatchObject({ public: true });
  });

  it.each([
    [{ redirect_uri: "https://a.example" }, "label", "label is required"],
    [{ label: "", redirect_uri: "https://a.example" }, "label", "Length must be between 1 and 512 characters."],
    [{ label: "x".repeat(513), redirect_uri: "https://a.example" }, "label", "Length must be between 1 and 512 characters."],
    [{ label: "a" }, "redirect_uri", "redirect_uri is required"],
    [{ label: "a", redirect_uri: "not a url" }, "redirect_uri", "redirect_uri must be an absolute http or https URL"],
    [{ label: "a", redirect_uri: "ftp://a.example/x" }, "redirect_uri", "redirect_uri must be an absolute http or https URL"],
    [{ label: "a", redirect_uri: "https://a.example", public: "yes" }, "public", expect.any(String)],
  ])("refuses %j", async (json, field, reason) => {
    const res = await create(json);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field, reason }] });
  });

  it("takes a 512-character label", async () => {
    expect((await create({ label: "x".repeat(512), redirect_uri: "https://a.example" })).status).toBe(200);
  });

  it("updates only what is sent; read-only fields are ignored", async () => {
    const { id } = await newClient("before");
    const res = await call(server, "PUT", `/account/oauth-clients/${id}`, { json: { label: "after", id: "other", secret: "x", status: "disabled" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      label: "after",
      public: false,
      redirect_uri: "https://app.example.com/callback",
      secret: "<REDACTED>",
      status: "active",
    });
    const res2 = await call(server, "PUT", `/account/oauth-clients/${id}`, { json: { public: true, redirect_uri: "https://new.example/cb" } });
    expect(res2.body).toMatchObject({ label: "after", public: true, redirect_uri: "https://new.example/cb" });
    expect((await call(server, "PUT", `/account/oauth-clients/${id}`, { json: { label: "" } })).status).toBe(400);
    expect((await call(server, "PUT", `/account/oauth-clients/${id}`, { json: { redirect_uri: "nope" } })).status).toBe(400);
  });

  it("answers 404 for an unknown id, another account's client and a malformed id", async () => {
    for (const id of ["0123456789abcdef0123", "%20", "a".repeat(65)]) {
      expect((await call(server, "GET", `/account/oauth-clients/${id}`)).status).toBe(404);
      expect((await call(server, "PUT", `/account/oauth-clients/${id}`, { json: { label: "x" } })).status).toBe(404);
      expect((await call(server, "DELETE", `/account/oauth-clients/${id}`)).status).toBe(404);
      expect((await call(server, "POST", `/account/oauth-clients/${id}/reset-secret`)).status).toBe(404);
    }
    const other = await server.store.accounts.insert({ euuid: "OTHER-ACCOUNT-1", active_since: "2025-01-01T00:00:00" });
    const { client } = await server.domain.oauth.createClient({ label: "theirs", accountId: other.id });
    expect((await call(server, "GET", `/account/oauth-clients/${client.public_id}`)).status).toBe(404);
  });
});

describe("secret reset and delete", () => {
  it("resets the secret: the new one in plaintext, the old one dead at once", async () => {
    const { id, secret } = await newClient();
    const res = await call(server, "POST", `/account/oauth-clients/${id}/reset-secret`);
    expect(res.status).toBe(200);
    const fresh = (res.body as { secret: string }).secret;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(secret);
    expect(await server.domain.oauth.checkSecret(id, secret)).toBe(false);
    expect(await server.domain.oauth.checkSecret(id, fresh)).toBe(true);
    expect((await call(server, "GET", `/account/oauth-clients/${id}`)).body).toMatchObject({ secret: "<REDACTED>" });
  });

  it("delete rejects the client and invalidates every token issued to it", async () => {
    const { id, secret } = await newClient();
    const stored = (await server.store.oauthClients.getByPublicId(id))!;
    const user = (await server.domain.auth.authenticate(server.token!)).user;
    const { token, app } = await server.domain.oauth.authorize({ userId: user.id, clientId: stored.id, scopes: "*" });
    expect((await call(server, "GET", "/profile", { token })).status).toBe(200);
    expect((await call(server, "GET", `/profile/apps/${app.id}`)).status).toBe(200);

    expect((await call(server, "DELETE", `/account/oauth-clients/${id}`)).body).toEqual({});
    expect((await call(server, "GET", "/profile", { token })).status).toBe(401);
    expect((await call(server, "GET", `/profile/apps/${app.id}`)).status).toBe(404);
    expect((await call(server, "GET", `/account/oauth-clients/${id}`)).status).toBe(404);
    expect((await call(server, "DELETE", `/account/oauth-clients/${id}`)).status).toBe(404);
    expect(await server.domain.oauth.checkSecret(id, secret)).toBe(false);
    await expect(server.domain.oauth.authorize({ userId: user.id, clientId: stored.id, scopes: "*" })).rejects.toThrow("Not found");
    const list = (await call(server, "GET", "/account/oauth-clients")).body as { data: Array<{ id: string }> };
    expect(list.data.map((c) => c.id)).not.toContain(id);
  });
});

describe("thumbnails", () => {
  it("stores PNG, JPEG and GIF and serves them publicly with their type", async () => {
    const { id } = await newClient();
    expect((await call(server, "GET", `/account/oauth-clients/${id}/thumbnail`, { token: null })).status).toBe(404);
    for (const [bytes, type] of [
      [PNG, "image/png"],
      [JPEG, "image/jpeg"],
      [GIF, "image/gif"],
    ] as const) {
      const res = await put(id, bytes, type);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      const got = await call(server, "GET", `/account/oauth-clients/${id}/thumbnail`, { token: null });
      expect(got.status).toBe(200);
      expect(got.headers["content-type"]).toBe(type);
      expect(Buffer.from(got.text, "latin1").length).toBeGreaterThan(0);
    }
    const view = (await call(server, "GET", `/account/oauth-clients/${id}`)).body as { thumbnail_url: string };
    expect(view.thumbnail_url).toBe(`${server.url}/account/oauth-clients/${id}/thumbnail`);
  });

  it("serves the exact bytes", async () => {
    const { id } = await newClient();
    await put(id, PNG, "image/png");
    const { request } = await import("undici");
    const res = await request(`${server.url}/account/oauth-clients/${id}/thumbnail`);
    expect(Buffer.from(await res.body.arrayBuffer())).toEqual(PNG);
  });

  it.each([
    ["bytes that are no image", Buffer.from("hello world"), "image/png", 400],
    ["a PNG declared as JPEG", PNG, "image/jpeg", 400],
    ["an empty body", Buffer.alloc(0), "image/png", 400],
    ["a type we do not take", PNG, "image/webp", 400],
    ["JSON", Buffer.from("{}"), "application/json", 400],
    ["text", Buffer.from("abc"), "text/plain", 400],
    ["no content type", PNG, null, 400],
    ["an image over the limit", Buffer.concat([PNG, Buffer.alloc(256 * 1024)]), "image/png", 413],
    ["a body over the server's limit", Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]), "image/png", 413],
  ])("refuses %s", async (_what, bytes, type, status) => {
    const { id } = await newClient();
    const res = await put(id, bytes, type);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ reason: expect.any(String) })] });
    expect((await call(server, "GET", `/account/oauth-clients/${id}/thumbnail`, { token: null })).status).toBe(404);
  });

  it("is gone with its client, and unknown clients are 404", async () => {
    const { id } = await newClient();
    await put(id, GIF, "image/gif");
    await call(server, "DELETE", `/account/oauth-clients/${id}`);
    expect((await call(server, "GET", `/account/oauth-clients/${id}/thumbnail`, { token: null })).status).toBe(404);
    expect((await put(id, GIF, "image/gif")).status).toBe(404);
    expect((await call(server, "GET", `/account/oauth-clients/zz/thumbnail`, { token: null })).status).toBe(404);
  });

  it("an image body on another route is still refused as not JSON", async () => {
    const res = await call(server, "POST", "/account/oauth-clients", { body: PNG, headers: { "content-type": "image/png" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("Content-Type must be application/json"));
  });
});

describe("grants and events", () => {
  it("a restricted user needs account_access: read_only to read, read_write to change", async () => {
    const { user, token } = await newActor(server, { restricted: true });
    expect((await call(server, "GET", "/account/oauth-clients", { token })).status).toBe(403);
    expect((await create({ label: "x", redirect_uri: "https://a.example" }, token)).status).toBe(403);
    const grants = (await call(server, "GET", "/profile/grants", { token })).body as GrantsResponse;
    await server.domain.users.setGrants(user.id, { ...grants, global: { ...grants.global, account_access: "read_only" } });
    expect((await call(server, "GET", "/account/oauth-clients", { token })).status).toBe(200);
    expect((await create({ label: "x", redirect_uri: "https://a.example" }, token)).status).toBe(403);
    const { id } = await newClient();
    expect((await put(id, PNG, "image/png", token)).status).toBe(403);
    await server.domain.users.setGrants(user.id, { ...grants, global: { ...grants.global, account_access: "read_write" } });
    expect((await create({ label: "x", redirect_uri: "https://a.example" }, token)).status).toBe(200);
  });

  it("records oauth_client_create, _update, _secret_reset and _delete", async () => {
    const { token } = await newActor(server);
    const { id } = (await create({ label: "evented", redirect_uri: "https://a.example" }, token)).body as { id: string };
    await call(server, "PUT", `/account/oauth-clients/${id}`, { token, json: { label: "evented2" } });
    await call(server, "POST", `/account/oauth-clients/${id}/reset-secret`, { token });
    await call(server, "DELETE", `/account/oauth-clients/${id}`, { token });
    const events = (await call(server, "GET", "/account/events", { token })).body as { data: Array<{ action: string; entity: { id: unknown; type: string } }> };
    const mine = events.data.filter((e) => e.entity?.id === id);
    expect(mine.map((e) => e.action)).toEqual(["oauth_client_delete", "oauth_client_secret_reset", "oauth_client_update", "oauth_client_create"]);
    expect(mine[0]!.entity).toEqual({ id, label: "evented2", type: "oauth_client", url: `/v4/account/oauth-clients/${id}` });
  });

  it("a read-only token can list but not change", async () => {
    const userId = (await server.domain.auth.authenticate(server.token!)).user.id;
    const token = await mintFor(server, userId, "account:read_only");
    expect((await call(server, "GET", "/account/oauth-clients", { token })).status).toBe(200);
    expect((await create({ label: "x", redirect_uri: "https://a.example" }, token)).status).toBe(401);
  });
});
