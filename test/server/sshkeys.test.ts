/** @tier unit */
/** `/profile/sshkeys` over real HTTP: every operation, its shape, limits and refusals. */
import { EmptyBody, ErrorBody, SshKey, formatTimestamp, paginated } from "../../src/contract";
import { Scopes } from "../../src/contract/scopes";
import { call, errorBody, startTestServer, START, type TestServer } from "./helpers";
import { ecdsaBlob, ecdsaKey, ed25519Blob, ed25519Key, rsaKey, sshString, sshText } from "./sshkey-gen";

const SshKeyPage = paginated(SshKey);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const create = (json: unknown, token?: string) => call(server, "POST", "/profile/sshkeys", { json, token });

describe("create, read, update, delete", () => {
  test("POST creates a key and answers the SSH key object", async () => {
    const key = ed25519Key("me@laptop");
    const res = await create({ label: "laptop", ssh_key: key });
    expect(res.status).toBe(200);
    const body = SshKey.parse(res.body);
    expect(body).toEqual({ id: expect.any(Number), label: "laptop", ssh_key: key, created: formatTimestamp(new Date(START)) });
    expect(Object.keys(res.body as object).sort()).toEqual(["created", "id", "label", "ssh_key"]);
  });

  test.each([
    ["ssh-ed25519", () => ed25519Key()],
    ["ssh-rsa", () => rsaKey()],
    ["ecdsa-sha2-nistp256", () => ecdsaKey("P-256")],
    ["ecdsa-sha2-nistp384", () => ecdsaKey("P-384")],
    ["ecdsa-sha2-nistp521", () => ecdsaKey("P-521")],
  ])("accepts a real %s key", async (_name, make) => {
    const key = make();
    const res = await create({ label: "k", ssh_key: key });
    expect(res.status).toBe(200);
    expect(SshKey.parse(res.body).ssh_key).toBe(key);
  });

  test("label is optional and defaults to the empty string; surrounding whitespace of the key is dropped", async () => {
    const key = ed25519Key("");
    const res = await create({ ssh_key: `  ${key}\n` });
    expect(res.status).toBe(200);
    expect(SshKey.parse(res.body)).toMatchObject({ label: "", ssh_key: key });
  });

  test("created comes from the clock", async () => {
    server.clock.advance(90_000);
    const res = await create({ label: "later", ssh_key: ed25519Key() });
    expect(SshKey.parse(res.body).created).toBe("2025-03-01T12:01:30");
  });

  test("GET by id answers the same object; the list holds it", async () => {
    const made = SshKey.parse((await create({ label: "get-me", ssh_key: ed25519Key() })).body);
    const one = await call(server, "GET", `/profile/sshkeys/${made.id}`);
    expect(one.status).toBe(200);
    expect(SshKey.parse(one.body)).toEqual(made);
    const list = await call(server, "GET", "/profile/sshkeys");
    expect(list.status).toBe(200);
    const page = SshKeyPage.parse(list.body);
    expect(page.data).toContainEqual(made);
    expect(page).toMatchObject({ page: 1, pages: 1, results: page.data.length });
  });

  test("PUT changes the label only", async () => {
    const made = SshKey.parse((await create({ label: "before", ssh_key: rsaKey() })).body);
    server.clock.advance(60_000);
    const res = await call(server, "PUT", `/profile/sshkeys/${made.id}`, { json: { label: "after" } });
    expect(res.status).toBe(200);
    expect(SshKey.parse(res.body)).toEqual({ ...made, label: "after" });
    expect(SshKey.parse((await call(server, "GET", `/profile/sshkeys/${made.id}`)).body)).toEqual({ ...made, label: "after" });
  });

  test("PUT accepts the object it read back (same key, other comment) and ignores read-only fields", async () => {
    const made = SshKey.parse((await create({ label: "rt", ssh_key: ed25519Key("one") })).body);
    const sameKeyOtherComment = `${made.ssh_key.split(" ").slice(0, 2).join(" ")} two`;
    const res = await call(server, "PUT", `/profile/sshkeys/${made.id}`, {
      json: { ...made, id: 999999, created: "2000-01-01T00:00:00", label: "rt2", ssh_key: sameKeyOtherComment },
    });
    expect(res.status).toBe(200);
    expect(SshKey.parse(res.body)).toEqual({ ...made, label: "rt2" });
  });

  test("PUT refuses a different ssh_key, naming the field, and changes nothing", async () => {
    const made = SshKey.parse((await create({ label: "fixed", ssh_key: ed25519Key() })).body);
    const res = await call(server, "PUT", `/profile/sshkeys/${made.id}`, { json: { label: "new", ssh_key: ed25519Key() } });
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).errors).toEqual([{ field: "ssh_key", reason: expect.stringContaining("Only the label") }]);
    expect(SshKey.parse((await call(server, "GET", `/profile/sshkeys/${made.id}`)).body)).toEqual(made);
  });

  test("PUT without a label is refused naming label", async () => {
    const made = SshKey.parse((await create({ label: "x", ssh_key: ed25519Key() })).body);
    const res = await call(server, "PUT", `/profile/sshkeys/${made.id}`, { json: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody("label is required", "label"));
  });

  test("DELETE answers {}; the key is then not found, by GET, PUT and DELETE", async () => {
    const made = SshKey.parse((await create({ label: "gone", ssh_key: ed25519Key() })).body);
    const del = await call(server, "DELETE", `/profile/sshkeys/${made.id}`);
    expect(del.status).toBe(200);
    expect(EmptyBody.parse(del.body)).toEqual({});
    for (const [method, json] of [
      ["GET", undefined],
      ["PUT", { label: "y" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await call(server, method, `/profile/sshkeys/${made.id}`, { json });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errors: [{ reason: "Not found" }] });
    }
    const list = SshKeyPage.parse((await call(server, "GET", "/profile/sshkeys?page_size=500")).body);
    expect(list.data.map((k) => k.id)).not.toContain(made.id);
  });

  test("ids are never reused after a delete", async () => {
    const a = SshKey.parse((await create({ ssh_key: ed25519Key() })).body);
    await call(server, "DELETE", `/profile/sshkeys/${a.id}`);
    const b = SshKey.parse((await create({ ssh_key: ed25519Key() })).body);
    expect(b.id).toBeGreaterThan(a.id);
  });

  test.each(["abc", "0", "-1", "1.5", "1e3", "99999999", "%20", "0x10"])("id %p is not found", async (id) => {
    const res = await call(server, "GET", `/profile/sshkeys/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errors: [{ reason: "Not found" }] });
  });

  test("keys belong to their user: another user's token sees none of them", async () => {
    const mine = SshKey.parse((await create({ label: "mine", ssh_key: ed25519Key() })).body);
    const { store, domain } = server;
    const owner = await store.users.get((await domain.auth.authenticate(server.token!)).user.id);
    const { id: _id, ...fields } = owner!;
    const other = await store.users.insert({ ...fields, username: "other-user", email: "other@example.com" });
    const { token } = await domain.tokens.mint({ userId: other.id, label: "other", scopes: Scopes.ALL, expiry: null });
    expect((await call(server, "GET", `/profile/sshkeys/${mine.id}`, { token })).status).toBe(404);
    expect((await call(server, "PUT", `/profile/sshkeys/${mine.id}`, { token, json: { label: "stolen" } })).status).toBe(404);
    expect((await call(server, "DELETE", `/profile/sshkeys/${mine.id}`, { token })).status).toBe(404);
    expect(SshKeyPage.parse((await call(server, "GET", "/profile/sshkeys", { token })).body)).toEqual({ data: [], page: 1, pages: 1, results: 0 });
    expect(SshKey.parse((await call(server, "GET", `/profile/sshkeys/${mine.id}`)).body).label).toBe("mine");
  });
});

describe("limits and refusals", () => {
  test("a label of 64 characters is accepted, 65 refused naming label (create and update)", async () => {
    const ok = await create({ label: "a".repeat(64), ssh_key: ed25519Key() });
    expect(ok.status).toBe(200);
    expect(SshKey.parse(ok.body).label).toBe("a".repeat(64));

    const tooLong = await create({ label: "a".repeat(65), ssh_key: ed25519Key() });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual(errorBody("Length must be 64 characters or less.", "label"));

    const id = SshKey.parse(ok.body).id;
    const put = await call(server, "PUT", `/profile/sshkeys/${id}`, { json: { label: "b".repeat(65) } });
    expect(put.status).toBe(400);
    expect(ErrorBody.parse(put.body).errors).toEqual([{ field: "label", reason: "Length must be 64 characters or less." }]);
    expect((await call(server, "PUT", `/profile/sshkeys/${id}`, { json: { label: "b".repeat(64) } })).status).toBe(200);
  });

  // Issue 47, item 7: a client (the Ansible ssh_key module, linodego) sends a label of emoji; the
  // limit counts characters, as upstream does and the message says, not UTF-16 units.
  test("the label limit counts characters: 33 and 64 emoji are accepted, 65 refused", async () => {
    for (const n of [33, 64]) {
      const res = await create({ label: "🔑".repeat(n), ssh_key: ed25519Key() });
      expect(res.status).toBe(200);
      expect(SshKey.parse(res.body).label).toBe("🔑".repeat(n));
    }
    const tooLong = await create({ label: "🔑".repeat(65), ssh_key: ed25519Key() });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual(errorBody("Length must be 64 characters or less.", "label"));
  });

  const blob = ed25519Blob();
  const invalidKeys: Array<[string, unknown, string | RegExp]> = [
    ["bad base64", "ssh-ed25519 AAAA$$$$", /not valid base64/],
    ["base64 of the wrong length", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI", /not valid base64/],
    ["unknown algorithm", sshText("ssh-foo", blob), /algorithm 'ssh-foo' is not supported/],
    ["algorithm not matching the blob", sshText("ssh-rsa", blob), /does not match the key data, which is 'ssh-ed25519'/],
    ["ecdsa name over an ed25519 blob", sshText("ecdsa-sha2-nistp256", blob), /does not match/],
    [
      "curve not matching the algorithm",
      sshText("ecdsa-sha2-nistp384", Buffer.concat([sshString("ecdsa-sha2-nistp384"), ecdsaBlob("P-256").subarray(23)])),
      /not a valid ecdsa-sha2-nistp384/,
    ],
    ["truncated blob", sshText("ssh-ed25519", blob.subarray(0, blob.length - 5)), /not a valid/],
    [
      "ed25519 key of the wrong size",
      sshText("ssh-ed25519", Buffer.concat([sshString("ssh-ed25519"), sshString(Buffer.alloc(31))])),
      /not a valid ssh-ed25519/,
    ],
    ["only an algorithm", "ssh-ed25519", /must be of the form/],
    ["empty", "", /must be of the form/],
    [
      "a private key header",
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      /^this is an OpenSSH private key, which must stay secret: give the public key instead, the \.pub file/,
    ],
  ];
  test.each(invalidKeys)("refuses %s naming ssh_key", async (_what, sshKey, reason) => {
    const res = await create({ label: "bad", ssh_key: sshKey });
    expect(res.status).toBe(400);
    const { errors } = ErrorBody.parse(res.body);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe("ssh_key");
    expect(errors[0]!.reason).toMatch(reason);
  });

  test("a missing ssh_key is required; wrong types name their field", async () => {
    expect((await create({ label: "x" })).body).toEqual(errorBody("ssh_key is required", "ssh_key"));
    const res = await create({ label: 5, ssh_key: 7 });
    expect(res.status).toBe(400);
    expect(
      ErrorBody.parse(res.body)
        .errors.map((e) => e.field)
        .sort(),
    ).toEqual(["label", "ssh_key"]);
  });

  test("a body that is not an object is refused", async () => {
    for (const json of [[], "text", 5, null, true]) {
      const res = await create(json);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody("Request body must be a JSON object"));
    }
  });
});

describe("pagination", () => {
  let paged: TestServer;
  const ids: number[] = [];
  beforeAll(async () => {
    paged = await startTestServer();
    const key = ed25519Key();
    for (let i = 0; i < 130; i++) {
      const res = await call(paged, "POST", "/profile/sshkeys", { json: { label: `k${i}`, ssh_key: key } });
      ids.push(SshKey.parse(res.body).id);
    }
  });
  afterAll(() => paged.close());

  const list = async (query: string) => {
    const res = await call(paged, "GET", `/profile/sshkeys${query}`);
    return { status: res.status, body: res.body };
  };

  test("defaults: page 1 of 100", async () => {
    const page = SshKeyPage.parse((await list("")).body);
    expect(page).toMatchObject({ page: 1, pages: 2, results: 130 });
    expect(page.data.map((k) => k.id)).toEqual(ids.slice(0, 100));
  });

  test("page 2 holds the rest", async () => {
    const page = SshKeyPage.parse((await list("?page=2")).body);
    expect(page).toMatchObject({ page: 2, pages: 2, results: 130 });
    expect(page.data.map((k) => k.id)).toEqual(ids.slice(100));
  });

  test("pages of 25 concatenate to the whole collection in id order", async () => {
    const seen: number[] = [];
    for (let p = 1; p <= 6; p++) {
      const page = SshKeyPage.parse((await list(`?page=${p}&page_size=25`)).body);
      expect(page).toMatchObject({ page: p, pages: 6, results: 130 });
      expect(page.data).toHaveLength(p < 6 ? 25 : 5);
      seen.push(...page.data.map((k) => k.id));
    }
    expect(seen).toEqual(ids);
  });

  test("page_size bounds 25 and 500 are accepted", async () => {
    expect(SshKeyPage.parse((await list("?page_size=500")).body)).toMatchObject({ pages: 1, results: 130 });
    expect(SshKeyPage.parse((await list("?page_size=500")).body).data).toHaveLength(130);
    expect((await list("?page_size=25")).status).toBe(200);
  });

  test("a page past the end answers the last page, as upstream does, saying which in `page`", async () => {
    const last = SshKeyPage.parse((await list("?page=2")).body);
    expect(last).toMatchObject({ page: 2, pages: 2, results: 130 });
    expect(last.data).toHaveLength(30);
    expect(SshKeyPage.parse((await list("?page=3")).body)).toEqual(last);
    expect(SshKeyPage.parse((await list("?page=9007199254740991&page_size=500")).body)).toEqual(SshKeyPage.parse((await list("?page_size=500")).body));
    // linodego's and linode_api4-python's page parameter is any integer the caller gives: one past
    // 2^53 is a page past the end too (the last page), not a 400 with a validator's message.
    const huge = await list("?page=99999999999999999999&page_size=500");
    expect(huge.status).toBe(200);
    expect(SshKeyPage.parse(huge.body)).toMatchObject({ page: 1, pages: 1, results: 130 });
    expect(SshKeyPage.parse(huge.body).data).toHaveLength(130);
    // The same through X-Filter, whose lists are cut after filtering.
    const filtered = await call(paged, "GET", "/profile/sshkeys?page=7", { headers: { "x-filter": JSON.stringify({ "+order": "desc" }) } });
    expect(SshKeyPage.parse(filtered.body)).toMatchObject({ page: 2, pages: 2, results: 130 });
    expect(SshKeyPage.parse(filtered.body).data).toHaveLength(30);
  });

  test.each([
    ["?page_size=24", "page_size"],
    ["?page_size=501", "page_size"],
    ["?page_size=abc", "page_size"],
    ["?page_size=100.5", "page_size"],
    ["?page_size=", "page_size"],
    ["?page_size=-25", "page_size"],
    ["?page=0", "page"],
    ["?page=-1", "page"],
    ["?page=1.5", "page"],
    ["?page=x", "page"],
    ["?page=1&page=2", "page"],
  ])("%s is refused naming %s", async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    const { errors } = ErrorBody.parse(res.body);
    expect(errors.map((e) => e.field)).toEqual([field]);
  });

  test.each(["?page_size=25&page_size=25", "?page_size=25&page_size=50", "?page=1&page=1"])(
    "%s: a repeated parameter, named in the API's words",
    async (query) => {
      const res = await list(query);
      const field = query.includes("page_size") ? "page_size" : "page";
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body)).toEqual({ errors: [{ field, reason: `${field} must be given only once` }] });
    },
  );

  test("unknown query parameters are ignored", async () => {
    expect(SshKeyPage.parse((await list("?foo=bar&page=2")).body).page).toBe(2);
  });
});
