/** @tier unit */
/** The provider block: its settings reach the client, every attempt is logged without secrets, and stop cancels. */
import { createProvider } from "../../src/provider";
import type { LogLevel } from "../../src/provider/framework/log";
import { ScriptedServer } from "../client/scripted-server";
import { closedPort } from "../../testkit/closed-port";
import { PROFILE } from "../client/fixtures";

const TOKEN = "s3cr3t-token-value-0123456789abcdef";
const key = { id: 7, label: "laptop", ssh_key: "ssh-ed25519 AAAA", created: "2026-01-01T00:00:00" };

let api: ScriptedServer;
beforeEach(async () => {
  api = await ScriptedServer.start();
});
afterEach(() => api.close());

function provider() {
  const lines: { level: LogLevel; message: string; fields?: Record<string, unknown> }[] = [];
  const p = createProvider({
    env: { MGMT_URL: api.url, MGMT_TOKEN: TOKEN },
    log: (level, message, fields) => lines.push({ level, message, ...(fields ? { fields } : {}) }),
  });
  return { p, lines };
}

const readKey = (p: ReturnType<typeof provider>["p"]) =>
  p.readResource("mgmt_ssh_key", { id: "7", label: "laptop", ssh_key: "ssh-ed25519 AAAA", created: "2026-01-01T00:00:00Z" });

describe("provider configuration", () => {
  it("logs every attempt and each retry with method, path, status, attempt and duration, never a header or a body", async () => {
    api.reply({ status: 503, headers: { "retry-after": "0" }, json: { errors: [{ reason: "busy" }] } }, { status: 200, json: key });
    const { p, lines } = provider();
    expect((await p.configure({ skip_credentials_validation: true, batch_reads: false, retry_min_delay_ms: 1, retry_max_delay_ms: 1 })).diagnostics).toEqual(
      [],
    );
    expect((await readKey(p)).diagnostics).toEqual([]);
    expect(lines).toEqual([
      {
        level: "warn",
        message: "GET /profile/sshkeys/7 503",
        fields: expect.objectContaining({ method: "GET", path: "/profile/sshkeys/7", status: 503, attempt: 1, duration_ms: expect.any(Number) }),
      },
      { level: "info", message: "retrying GET /profile/sshkeys/7 in 0 ms (503)", fields: expect.objectContaining({ attempt: 1, reason: "503" }) },
      { level: "debug", message: "GET /profile/sshkeys/7 200", fields: expect.objectContaining({ status: 200, attempt: 2 }) },
    ]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(JSON.stringify(lines)).not.toContain("laptop");
  });

  it("passes max_retries and the delays to the client", async () => {
    api.handle(() => ({ status: 503, json: { errors: [{ reason: "busy" }] } }));
    const { p } = provider();
    await p.configure({ skip_credentials_validation: true, batch_reads: false, max_retries: 2, retry_min_delay_ms: 1, retry_max_delay_ms: 2 });
    const r = await readKey(p);
    expect(r.diagnostics[0]!.detail).toMatch(/gave up after 3 attempts/);
    expect(api.requests).toHaveLength(3);
  });

  it("times out an attempt after request_timeout seconds", async () => {
    api.reply("hang");
    const { p } = provider();
    await p.configure({ skip_credentials_validation: true, batch_reads: false, request_timeout: 0.2, max_retries: 0 });
    const r = await readKey(p);
    expect(r.diagnostics[0]!.detail).toMatch(/no complete answer within 200 ms/);
  });

  it("aborts in-flight requests when the engine asks the provider to stop", async () => {
    api.handle(() => "hang");
    const { p } = provider();
    await p.configure({ skip_credentials_validation: true, batch_reads: false });
    const pending = readKey(p);
    while (api.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await p.stop();
    const r = await pending;
    expect(r.diagnostics[0]).toMatchObject({ severity: "error", detail: expect.stringMatching(/cancelled/) });
    // Nothing new starts after a stop.
    expect((await readKey(p)).diagnostics[0]!.detail).toMatch(/cancelled/);
    expect(api.requests).toHaveLength(1);
  });

  it("names the scope a refused operation accepts, as the API says it", async () => {
    api.reply({
      status: 403,
      headers: { "x-accepted-oauth-scopes": "account:read_only" },
      json: { errors: [{ reason: "Your OAuth token is not authorized to use this endpoint." }] },
    });
    const { p } = provider();
    await p.configure({ skip_credentials_validation: true, batch_reads: false });
    const r = await readKey(p);
    expect(r.diagnostics[0]!.detail).toMatch(/\[403\] Your OAuth token is not authorized.* accepts OAuth scope "account:read_only"/);
  });

  it("validates its settings, naming the attribute", async () => {
    const { p } = provider();
    const diags = async (config: Record<string, unknown>) => (await p.validateProviderConfig(config as never)).diagnostics;
    expect(await diags({ request_timeout: 0 })).toEqual([expect.objectContaining({ attribute: [{ attribute: "request_timeout" }] })]);
    expect(await diags({ max_retries: 1.5 })).toEqual([expect.objectContaining({ attribute: [{ attribute: "max_retries" }] })]);
    expect(await diags({ retry_min_delay_ms: 500, retry_max_delay_ms: 100 })).toEqual([
      expect.objectContaining({ attribute: [{ attribute: "retry_max_delay_ms" }] }),
    ]);
    expect(await diags({ url: "ftp://x" })).toEqual([expect.objectContaining({ attribute: [{ attribute: "url" }] })]);
  });
});

describe("configure checks the url and the token once", () => {
  const invalid = { status: 401, json: { errors: [{ reason: "Invalid Token" }] } } as const;
  const notFound = { status: 404, json: { errors: [{ reason: "Not found" }] } } as const;

  it("a token refused by the API fails configure, naming MGMT_TOKEN, the url and the API's reason", async () => {
    api.reply(invalid);
    const r = await provider().p.configure({});
    expect(r.diagnostics).toEqual([
      {
        severity: "error",
        summary: "Invalid API token",
        detail: `The API at ${api.url} refused the token from MGMT_TOKEN: Invalid Token (HTTP 401). The token may be mistyped, expired or revoked: set MGMT_TOKEN to a valid personal access token. (skip_credentials_validation = true skips this check for offline plans.)`,
      },
    ]);
    expect(api.requests.map((q) => q.pathname)).toEqual(["/v4/profile"]);
  });

  it("names the token attribute, on the attribute, when the token came from the configuration", async () => {
    api.reply(invalid);
    const r = await provider().p.configure({ token: "wrong" });
    expect(r.diagnostics[0]).toMatchObject({ summary: "Invalid API token", attribute: [{ attribute: "token" }] });
    expect(r.diagnostics[0]!.detail).toContain("refused the token from the provider's token attribute: Invalid Token (HTTP 401)");
    expect(r.diagnostics[0]!.detail).not.toContain("wrong");
  });

  it("a url that is not the API's root fails configure with the fix", async () => {
    api.handle(() => notFound);
    const origin = api.url.replace(/\/v4$/, "");
    const p = createProvider({ env: { MGMT_URL: origin, MGMT_TOKEN: TOKEN } });
    const r = await p.configure({});
    expect(r.diagnostics).toEqual([
      {
        severity: "error",
        summary: "Not the Management API",
        detail: `${origin} does not answer as the Management API (GET /profile answered [404] Not found), so its 404s cannot mean an object is gone. The API root ends in its version: use ${origin}/v4, as \`mgmt serve\` prints it. Set MGMT_URL accordingly.`,
      },
    ]);
  });

  it("an API that is down fails configure after its few tries, naming MGMT_URL and `mgmt serve`", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v4`;
    const p = createProvider({ env: { MGMT_URL: url, MGMT_TOKEN: TOKEN } });
    const r = await p.configure({ retry_min_delay_ms: 1, retry_max_delay_ms: 2 });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.summary).toBe("Cannot reach the Management API");
    expect(r.diagnostics[0]!.detail).toMatch(
      new RegExp(
        `^GET /profile: could not connect \\(ECONNREFUSED\\) to http://127.0.0.1:\\d+ after 3 attempts: nothing answers at ${url.replace(/\./g, "\\.")}; check the API URL, or start the local API \\(\`mgmt serve\`\\)\\. The url comes from MGMT_URL\\.`,
      ),
    );
  });

  it("the check's answer serves the root check: a later 404 is taken as gone without asking again", async () => {
    api.reply({ status: 200, json: PROFILE }, notFound);
    const { p } = provider();
    expect((await p.configure({ batch_reads: false })).diagnostics).toEqual([]);
    const r = await readKey(p);
    expect(r.newState).toBeNull();
    expect(api.requests.map((q) => q.pathname)).toEqual(["/v4/profile", "/v4/profile/sshkeys/7"]);
  });

  it("skip_credentials_validation configures without a request; a 404 read later still checks the root first", async () => {
    api.handle(() => notFound);
    const origin = api.url.replace(/\/v4$/, "");
    const p = createProvider({ env: { MGMT_URL: origin, MGMT_TOKEN: TOKEN } });
    expect((await p.configure({ skip_credentials_validation: true, batch_reads: false })).diagnostics).toEqual([]);
    expect(api.requests).toHaveLength(0);
    const state = { id: "7", label: "laptop", ssh_key: "ssh-ed25519 AAAA", created: "2026-01-01T00:00:00Z" };
    const r = await p.readResource("mgmt_ssh_key", state);
    expect(r.newState).toEqual(state);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", detail: expect.stringContaining("Set the provider's url attribute or MGMT_URL") }),
    ]);
  });
});
