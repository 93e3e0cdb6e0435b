/** @tier unit */
/** Fixtures: loading a file, errors naming the JSON path, the defaults on a fresh server. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ACCOUNT_FIELD_MAX,
  BEARER_TOKEN_MAX_LENGTH,
  EMAIL_MAX,
  OAUTH_CLIENT_LABEL_MAX,
  SSH_KEY_LABEL_MAX,
  TAG_LABEL,
  TOKEN_LABEL,
  ZIP_MAX,
} from "../../src/contract";
import { startServer } from "../../src/server";
import { defaultFixtures, DEFAULT_FIXTURE_FILES } from "../../src/server/fixtures/default";
import { parseFixtures } from "../../src/server/fixtures/loader";
import { call, startTestServer } from "./helpers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mgmt-fixtures-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO+LwHjP3yz8jS3wKS5qbR0fa6EFAi7HFllV79hWTknQ alice@laptop";

test("a fixtures file: users, tokens, ssh keys, logins, devices, OAuth apps", async () => {
  const path = file("ok.json", {
    version: 1,
    users: [
      {
        username: "ivy",
        email: "ivy@example.com",
        restricted: true,
        grants: { global: { add_domains: true } },
        tokens: [{ label: "ivy ci", scopes: "account:read_only", token: "ivy-fixed-token" }],
      },
    ],
    ssh_keys: [{ user: "ivy", label: "ivy key", ssh_key: KEY, created: "-2d" }],
    logins: [
      { user: "ivy", ip: "192.0.2.1", datetime: "-1d" },
      { user: "ivy", ip: "192.0.2.2", datetime: "-100d" },
      { user: "ivy", ip: "192.0.2.3", status: "failed" },
    ],
    trusted_devices: [{ user: "ivy", user_agent: "curl/8", remote_addr: "192.0.2.1", created: "2025-02-20T00:00:00" }],
    oauth_clients: [{ label: "Dash", website: "https://dash.example.com", authorizations: [{ user: "ivy", scopes: "account:read_only", expiry: "+1d" }] }],
  });
  const server = await startTestServer({ fixtures: path });
  try {
    const token = "ivy-fixed-token";
    const get = async (p: string) => (await call(server, "GET", p, { token })).body as { data: Array<Record<string, unknown>>; results: number };
    expect((await call(server, "GET", "/profile", { token })).body).toMatchObject({ username: "ivy", restricted: true });
    expect(((await call(server, "GET", "/profile/grants", { token })).body as { global: Record<string, unknown> }).global).toMatchObject({
      add_domains: true,
      add_volumes: false,
    });
    expect((await get("/profile/sshkeys")).data).toEqual([expect.objectContaining({ label: "ivy key", created: "2025-02-27T12:00:00" })]);
    expect((await get("/profile/logins")).data.map((l) => l.ip)).toEqual(["192.0.2.1"]);
    expect((await get("/profile/devices")).data).toEqual([
      expect.objectContaining({ user_agent: "curl/8", created: "2025-02-20T00:00:00", expiry: "2025-03-22T00:00:00" }),
    ]);
    expect((await get("/profile/apps")).data).toEqual([expect.objectContaining({ label: "Dash", expiry: "2025-03-02T12:00:00" })]);
    expect((await get("/profile/tokens")).data.map((t) => t.label)).toEqual(["ivy ci"]);
    // The bootstrap account is untouched.
    expect(((await call(server, "GET", "/profile/sshkeys")).body as { results: number }).results).toBe(0);
    expect(server.logs.some((l) => l.includes("fixtures loaded"))).toBe(true);
  } finally {
    await server.close();
  }
});

test("fixtures are applied only to a store this start created", async () => {
  const db = join(dir, "once.sqlite");
  const fixtures = { version: 1, users: [{ username: "jack", email: "jack@example.com" }] };
  const first = await startServer({ db, fixtures, logger: { info() {}, error() {} } });
  await first.close();
  const logs: string[] = [];
  const second = await startServer({ db, fixtures, logger: { info: (m) => logs.push(m), error() {} } });
  await second.close();
  expect(logs).toContain("fixtures skipped: the store existed already");
});

describe("a malformed file is refused with the JSON path", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["not JSON", "{ nope", /bad\.json: \$: not valid JSON/],
    ["not an object", [1], /\$: must be a JSON object/],
    ["no version", { users: [] }, /\$\.version: is required/],
    ["wrong version", { version: 2 }, /\$\.version: must be 1/],
    ["unknown section", { version: 1, bogus: [] }, /\$\.bogus: unknown section/],
    ["bad email", { version: 1, users: [{ username: "kim", email: "kim" }] }, /\$\.users\[0\]\.email: /],
    ["missing field", { version: 1, users: [{ email: "kim@example.com" }] }, /\$\.users\[0\]\.username: is required/],
    ["unknown key", { version: 1, logins: [{ ip: "192.0.2.1", when: "now" }] }, /\$\.logins\[0\]: /],
    ["bad time", { version: 1, logins: [{ ip: "192.0.2.1", datetime: "yesterday" }] }, /\$\.logins\[0\]\.datetime: must be 'now'/],
    ["bad key", { version: 1, ssh_keys: [{ ssh_key: "ssh-ed25519 AAAA" }] }, /\$\.ssh_keys\[0\]\.ssh_key: /],
    [
      "unknown user",
      { version: 1, trusted_devices: [{ user: "nobody", user_agent: "x", remote_addr: "192.0.2.1" }] },
      /\$\.trusted_devices\[0\]\.user: no user 'nobody'/,
    ],
    ["duplicate user", { version: 1, users: [{ username: "admin", email: "a@example.com" }] }, /\$\.users\[0\]\.username: user 'admin' already exists/],
    [
      "nested path",
      { version: 1, oauth_clients: [{ label: "x", authorizations: [{ scopes: "bad scope" }] }] },
      /\$\.oauth_clients\[0\]\.authorizations\[0\]\.scopes: /,
    ],
  ];
  test.each(cases)("%s", async (_name, content, message) => {
    const path = file("bad.json", content);
    await expect(startTestServer({ fixtures: path })).rejects.toThrow(message);
  });
  test("a missing file", async () => {
    await expect(startTestServer({ fixtures: join(dir, "missing.json") })).rejects.toThrow(/missing\.json: \$: cannot read the file/);
  });
});

/** The tagged objects' limits (the contract's table of them), each at and past its bounds. */
function objectLimits(): Array<[string, unknown, unknown, string]> {
  const doc = (section: string, fields: Record<string, unknown>) => ({ version: 1, [section]: [fields] });
  const bounds: Array<[string, string, Record<string, unknown>, string, number, number]> = [
    ["compute label", "compute_instances", {}, "label", 3, 64],
    ["volume label", "volumes", {}, "label", 1, 32],
    ["NodeBalancer label", "nodebalancers", {}, "label", 3, 32],
    ["domain", "domains", {}, "domain", 1, 253],
    ["domain group", "domains", { domain: "example.com" }, "group", 0, 50],
    ["domain description", "domains", { domain: "example.com" }, "description", 0, 253],
  ];
  const cases = bounds.flatMap(([what, section, base, field, min, max]): Array<[string, unknown, unknown, string]> => [
    [
      `${what} at most ${max}`,
      doc(section, { ...base, [field]: "a".repeat(max) }),
      doc(section, { ...base, [field]: "a".repeat(max + 1) }),
      `$.${section}[0].${field}`,
    ],
    ...(min > 0
      ? [
          [
            `${what} at least ${min}`,
            doc(section, { ...base, [field]: "a".repeat(min) }),
            doc(section, { ...base, [field]: "a".repeat(min - 1) }),
            `$.${section}[0].${field}`,
          ] as [string, unknown, unknown, string],
        ]
      : []),
  ]);
  cases.push(
    [
      "compute label's separators",
      doc("compute_instances", { label: "web-1.a_b" }),
      doc("compute_instances", { label: "web--1" }),
      "$.compute_instances[0].label",
    ],
    [
      "client_conn_throttle",
      doc("nodebalancers", { label: "lb1", client_conn_throttle: 20 }),
      doc("nodebalancers", { label: "lb1", client_conn_throttle: 21 }),
      "$.nodebalancers[0].client_conn_throttle",
    ],
  );
  return cases;
}

describe("fixture fields follow the contract's rules, at and past each limit", () => {
  const user = (fields: Record<string, unknown>) => ({ version: 1, users: [{ username: "kim", email: "kim@example.com", ...fields }] });
  const email = (length: number) => `${"k".repeat(length - "@example.com".length)}@example.com`;
  // [what, the document at the limit, the document past it, the JSON path refused]
  const cases: Array<[string, unknown, unknown, string]> = [
    [
      "token label",
      user({ tokens: [{ label: "t".repeat(TOKEN_LABEL.max) }] }),
      user({ tokens: [{ label: "t".repeat(TOKEN_LABEL.max + 1) }] }),
      "$.users[0].tokens[0].label",
    ],
    ["empty token label", user({ tokens: [{ label: "t".repeat(TOKEN_LABEL.min) }] }), user({ tokens: [{ label: "" }] }), "$.users[0].tokens[0].label"],
    // 256 characters in all, padding included: the server could mint the first, never the second.
    [
      "token value",
      user({ tokens: [{ label: "ci", token: `${"v".repeat(BEARER_TOKEN_MAX_LENGTH - 2)}==` }] }),
      user({ tokens: [{ label: "ci", token: `${"v".repeat(BEARER_TOKEN_MAX_LENGTH)}==` }] }),
      "$.users[0].tokens[0].token",
    ],
    [
      "token value's characters",
      user({ tokens: [{ label: "ci", token: "a.b_c~d+e/f-g=" }] }),
      user({ tokens: [{ label: "ci", token: "a b" }] }),
      "$.users[0].tokens[0].token",
    ],
    ["user email", user({ email: email(EMAIL_MAX) }), user({ email: email(EMAIL_MAX + 1) }), "$.users[0].email"],
    ["user email form", user({ email: "kim@example.com" }), user({ email: "kim@localhost" }), "$.users[0].email"],
    ["time zone", user({ timezone: "America/New_York" }), user({ timezone: "Mars/Olympus_Mons" }), "$.users[0].timezone"],
    [
      "SSH key label",
      { version: 1, ssh_keys: [{ label: "k".repeat(SSH_KEY_LABEL_MAX), ssh_key: KEY }] },
      { version: 1, ssh_keys: [{ label: "k".repeat(SSH_KEY_LABEL_MAX + 1), ssh_key: KEY }] },
      "$.ssh_keys[0].label",
    ],
    [
      "OAuth client label",
      { version: 1, oauth_clients: [{ label: "c".repeat(OAUTH_CLIENT_LABEL_MAX) }] },
      { version: 1, oauth_clients: [{ label: "c".repeat(OAUTH_CLIENT_LABEL_MAX + 1) }] },
      "$.oauth_clients[0].label",
    ],
    [
      "tag label",
      { version: 1, compute_instances: [{ label: "web-1", tags: ["t".repeat(TAG_LABEL.min), "t".repeat(TAG_LABEL.max)] }] },
      { version: 1, compute_instances: [{ label: "web-1", tags: ["t".repeat(TAG_LABEL.min - 1)] }] },
      "$.compute_instances[0].tags[0]",
    ],
    ...objectLimits(),
    ["zip", { version: 1, account: { zip: "z".repeat(ZIP_MAX) } }, { version: 1, account: { zip: "z".repeat(ZIP_MAX + 1) } }, "$.account.zip"],
    ["account email", { version: 1, account: { email: "bill@example.com" } }, { version: 1, account: { email: "bill" } }, "$.account.email"],
    [
      "child account city",
      { version: 1, child_accounts: [{ city: "c".repeat(ACCOUNT_FIELD_MAX.city) }] },
      { version: 1, child_accounts: [{ city: "c".repeat(ACCOUNT_FIELD_MAX.city + 1) }] },
      "$.child_accounts[0].city",
    ],
  ];
  test.each(cases)("%s", (_name, ok, bad, path) => {
    expect(() => parseFixtures(ok, "ok.json")).not.toThrow();
    expect(() => parseFixtures(bad, "bad.json")).toThrow(`bad.json: ${path}: `);
  });

  test("an account's country is read as the API reads it, in either case", () => {
    const parsed = parseFixtures({ version: 1, account: { country: "us" } }, "ok.json");
    expect(parsed.sections.get("account")).toMatchObject({ country: "US" });
  });
});

describe("the default fixtures", () => {
  test("every default file is valid on its own", () => {
    for (const f of DEFAULT_FIXTURE_FILES) expect(() => parseFixtures(f.json, f.name)).not.toThrow();
    expect([...defaultFixtures().sections.keys()].sort()).toEqual([
      "account",
      "availability",
      "child_accounts",
      "compute_instances",
      "domains",
      "invoices",
      "logins",
      "maintenance",
      "nodebalancers",
      "notifications",
      "oauth_clients",
      "payment_methods",
      "ssh_keys",
      "trusted_devices",
      "users",
      "volumes",
    ]);
  });

  test("a fresh server with the defaults looks lived-in", async () => {
    const server = await startTestServer({ defaultFixtures: true });
    try {
      const count = async (p: string) => ((await call(server, "GET", p)).body as { results: number }).results;
      expect(await count("/profile/sshkeys")).toBeGreaterThanOrEqual(1);
      expect(await count("/profile/logins")).toBeGreaterThanOrEqual(3);
      expect(await count("/profile/devices")).toBeGreaterThanOrEqual(1);
      expect(await count("/profile/apps")).toBeGreaterThanOrEqual(2);
    } finally {
      await server.close();
    }
  });

  test("an explicit fixtures document replaces the defaults", async () => {
    const server = await startTestServer({ defaultFixtures: true, fixtures: { version: 1 } });
    try {
      expect(((await call(server, "GET", "/profile/sshkeys")).body as { results: number }).results).toBe(0);
    } finally {
      await server.close();
    }
  });
});
