/** @tier engine */
/**
 * `mgmt drift` says who: against a real `mgmt serve`, a stack (OpenTofu) manages an OAuth client and
 * a tag; another user of the account, with a token of their own (minted through the admin API),
 * renames the client, deletes the tag and creates a tag of their own. The drift report and its JSON
 * name that user, the action and the time of each, from `GET /account/events`; the drift job's own
 * token, days from expiry, is warned about before it lapses; a token that cannot read events gets a
 * report that says so instead of a failed run. No secret (the client's secret, a token's value) reaches it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { listAll, MgmtClient } from "../../src/client";
import { TOKEN_PREFIX_LENGTH } from "../../src/contract/tokens";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { folds, runMgmt } from "../report/run-mgmt";

jest.setTimeout(300_000);

const ADMIN_TOKEN = "e2e-admin-drift-who-6c1d";

interface Who {
  event_id: number;
  action: string;
  when: string;
  username: string | null;
}
interface DriftJson {
  drift: { address: string; actions: string[]; who?: Who | null }[];
  unmanaged: { type: string; id: string; who?: Who | null }[];
  events_unavailable?: string;
  ci_token?: { id: number; label: string; state: string; days_left?: number };
}

describe("drift names the account event behind each out-of-band change", () => {
  const engine: Engine = availableEngines().find((e) => e.name === "tofu")!;
  let server: RunningServer;
  let client: MgmtClient;
  let other: MgmtClient;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let driftToken: string;
  let ciValue: string;
  const secrets: string[] = [];

  const admin = async (path: string, body: unknown) => {
    const r = await request(`${server.url.replace(/\/v4$/, "")}/__admin${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await r.body.json()) as Record<string, unknown>;
    if (r.statusCode !== 200) throw new Error(`admin ${path}: ${r.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const tf = async (...args: string[]) => {
    const r = await runEngine(engine, [args[0]!, "-no-color", ...args.slice(1)], work, env);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const drift = (token: string, ...args: string[]) =>
    runMgmt(["drift", "--dir", work, "--engine", engine.name, "--unmanaged", ...args], { env: { ...env, MGMT_TOKEN: token }, cwd: work });
  const noSecret = (text: string) => {
    for (const s of secrets) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(s.slice(0, TOKEN_PREFIX_LENGTH));
    }
  };

  beforeAll(async () => {
    server = await startServe(["--port", "0", "--db", ":memory:", "--no-default-fixtures"], { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
    client = new MgmtClient({ url: server.url, token: server.token });
    // Another unrestricted user of the same account, acting with a token of their own.
    const made = (await admin("/users", { username: "bob-oncall", email: "bob@example.com", token: { label: "bob laptop" } })) as { token: { token: string } };
    other = new MgmtClient({ url: server.url, token: made.token.token });
    // The drift job's token: read-only, events too, expiring in three days.
    const expiry = new Date(Date.now() + 3 * 86_400_000 + 3_600_000).toISOString().slice(0, 19);
    driftToken = (await client.createToken({ label: "ci drift job", scopes: "account:read_only events:read_only", expiry })).token;
    secrets.push(server.token, made.token.token, driftToken);
    work = mkdtempSync(join(tmpdir(), "mgmt-drift-who-"));
    mkdirSync(join(work, "cli"));
    env = engineEnvironment({ cliConfig: writeCliConfig(join(work, "cli"), "mirror"), url: server.url, token: server.token });
    writeFileSync(
      join(work, "main.tf.json"),
      JSON.stringify({
        terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } },
        provider: { mgmt: {} },
        resource: {
          mgmt_oauth_client: { app: { label: "dashboard", redirect_uri: "https://dash.example.com/cb" } },
          mgmt_tag: { old: { label: "old-tag" }, kept: { label: "kept-tag" } },
          // A token the stack rotates under renew_before, which a deploy job might act with (the guide says not to).
          mgmt_token: { ci: { label: "ci deploy", scopes: "account:read_only events:read_only", expires_in: "48h", renew_before: "47h" } },
        },
        output: { secret: { value: "${mgmt_oauth_client.app.secret}", sensitive: true } },
      }),
    );
    await tf("init", "-input=false");
    await tf("apply", "-auto-approve", "-input=false");
    const state = JSON.parse(await tf("show", "-json")) as { values: { root_module: { resources: { address: string; values: Record<string, string> }[] } } };
    secrets.push(state.values.root_module.resources.find((r) => r.address === "mgmt_oauth_client.app")!.values.secret!);
    ciValue = state.values.root_module.resources.find((r) => r.address === "mgmt_token.ci")!.values.token!;
    secrets.push(ciValue);
  });

  afterAll(async () => {
    await other?.close();
    await client?.close();
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("names the other user's change, deletion and creation, and says so where no event explains one", async () => {
    const clean = await drift(driftToken, "--format", "json");
    expect(clean.code).toBe(0);
    const quiet = JSON.parse(clean.stdout) as DriftJson;
    expect(quiet.drift).toEqual([]);
    // Nothing drifted, but the token the job acts with expires in three days: said before it happens.
    expect(quiet.ci_token).toMatchObject({ label: "ci drift job", state: "expiring", days_left: 3 });

    const appId = (await listAll(client.listOAuthClients())).find((c) => c.label === "dashboard")!.id;
    await other.updateOAuthClient(appId, { label: "dashboard (bob)" });
    await other.deleteTag("old-tag");
    await other.createTag({ label: "bobs-tag" });

    const r = await drift(driftToken, "--format", "json");
    expect(r.code).toBe(2);
    noSecret(r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as DriftJson;
    const byAddress = Object.fromEntries(report.drift.map((d) => [d.address, d]));
    expect(byAddress["mgmt_oauth_client.app"]!.who).toMatchObject({ username: "bob-oncall", action: "oauth_client_update" });
    expect(byAddress["mgmt_tag.old"]!.who).toMatchObject({ username: "bob-oncall", action: "tag_delete" });
    expect(report.unmanaged.find((u) => u.type === "mgmt_tag" && u.id === "bobs-tag")!.who).toMatchObject({ username: "bob-oncall", action: "tag_create" });
    const who = byAddress["mgmt_oauth_client.app"]!.who!;
    expect(who.when).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(Math.abs(Date.parse(`${who.when}Z`) - Date.now())).toBeLessThan(3_600_000);

    const md = await drift(driftToken);
    expect(md.code).toBe(2);
    noSecret(md.stdout + md.stderr);
    const f = folds(md.stdout);
    expect(f["Changed outside of Terraform, state → live"]).toMatch(
      /- `mgmt_oauth_client\.app` \(by `bob-oncall`, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(`oauth_client_update`, event \d+\)\)/,
    );
    expect(f["Deleted outside of Terraform"]).toMatch(/- `mgmt_tag\.old` \(by `bob-oncall`, .* \(`tag_delete`, event \d+\)\)/);
    expect(f["Not managed by any state"]).toMatch(/`"bobs-tag"` → import as .* \(created by `bob-oncall`, .* \(`tag_create`, event \d+\)\)/);
    expect(md.stdout).toMatch(/> \[!WARNING\]\n> \*\*The token this CI run acts with \(id `\d+`, `"ci drift job"`\) expires \d{4}-\d\d-\d\d, in 3 days\.\*\*/);
  });

  it("a CI token the stack manages, inside its renew_before: the report says the next apply rotates it away from the CI's secret", async () => {
    // Time passing, as far as the window is concerned: the state's renew_before (kept by every refresh, never
    // sent to the API) now reaches back past the token's creation, as 47h does once an hour has gone by.
    const stateFile = join(work, "terraform.tfstate");
    writeFileSync(stateFile, readFileSync(stateFile, "utf8").replace('"renew_before": "47h"', '"renew_before": "48h"'));
    const r = await drift(ciValue, "--format", "json");
    noSecret(r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as DriftJson & { ci_token: { managed_as?: string; renew_before?: string } };
    expect(report.ci_token).toMatchObject({ label: "ci deploy", state: "renewal", managed_as: "mgmt_token.ci", renew_before: "48h", days_left: 1 });
    const md = await drift(ciValue);
    noSecret(md.stdout + md.stderr);
    expect(md.stdout).toMatch(
      /> \*\*The token this CI run acts with \(id `\d+`, `"ci deploy"`\) is inside its renewal window: it expires \d{4}-\d\d-\d\d \(in 1 day\), inside renew_before 48h of `mgmt_token\.ci`/,
    );
  });

  it("a token that cannot read events: the report says who is not known, and the run reports the drift as usual", async () => {
    const blind = (await client.createToken({ label: "no events", scopes: "account:read_only" })).token;
    secrets.push(blind);
    const r = await drift(blind, "--format", "json");
    expect(r.code).toBe(2);
    noSecret(r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as DriftJson;
    expect(report.events_unavailable).toMatch(/cannot read GET \/account\/events \(HTTP 40[13]\); give the drift job's token events:read_only/);
    expect(report.drift.every((d) => !("who" in d))).toBe(true);
    // Without an expiry, nothing to warn about.
    expect(report.ci_token).toMatchObject({ label: "no events", state: "ok" });
  });
});
