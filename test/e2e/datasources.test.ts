/** @tier engine */
/**
 * Real engines (OpenTofu from npm, Terraform when on PATH) read every data source of the built
 * plugin from a real `mgmt serve` with its default fixtures, in one configuration; the state's
 * values are compared field by field with what the API answers for the same objects. Then the
 * plan-time refusals: a filter on an unknown field, and a token without the scope.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine, type EngineResult } from "../../src/harness/engine";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { PROVIDER_SOURCE } from "../../src/provider/identity";
import { dataSources } from "../../src/provider/datasources";
import type { ObjectValue } from "../../src/provider/framework/value";
import { differences } from "../provider/datasources/support";

jest.setTimeout(240_000);

interface StateJson {
  values?: { root_module?: { resources?: { address: string; mode: string; values: ObjectValue }[] } };
}

const f = (name: string, values: string[], match_by: string | null = null) => ({ name, values, match_by });

describe.each(availableEngines())("$name reads every data source", (engine: Engine) => {
  let server: RunningServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let data: Record<string, ObjectValue>;

  const api = async (method: "GET" | "POST", path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await request(server.url + path, {
      method,
      headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const all = async (path: string) => (await api("GET", `${path}?page_size=500`)).data as Record<string, unknown>[];
  const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<EngineResult> => runEngine(engine, args, dir, { ...env, ...extraEnv });
  const ok = async (...args: string[]): Promise<EngineResult> => {
    const r = await run(args);
    if (r.code !== 0) throw new Error(`${engine.name} ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  const writeConfig = (dataSources: Record<string, Record<string, ObjectValue>>) =>
    writeFileSync(
      join(dir, "main.tf.json"),
      JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } }, provider: { mgmt: {} }, data: dataSources }),
    );

  beforeAll(async () => {
    server = await startServe();
    dir = mkdtempSync(join(tmpdir(), `mgmt-e2e-ds-${engine.name}-`));
    env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: server.url, token: server.token });
    // Rows for the lists the default fixtures leave empty (events), and a client to filter on.
    await api("POST", "/profile/tokens", { label: "e2e reader", scopes: "account:read_only" });
    await api("POST", "/account/oauth-clients", { label: "E2E Client", redirect_uri: "https://e2e.example.com/cb" });
    const [event] = await all("/account/events");
    const [invoice] = await all("/account/invoices");
    const [child] = await all("/account/child-accounts");
    const [key] = await all("/profile/sshkeys");

    writeConfig({
      mgmt_profile: { me: {} },
      mgmt_account: { this: {} },
      mgmt_events: { recent: { filter: [f("action", ["oauth_client_create", "token_create"], "exact")], order_by: "id", order: "asc" } },
      mgmt_event: { one: { id: event!.id as number } },
      mgmt_invoices: { all: { include_items: true } },
      mgmt_invoice: { one: { id: invoice!.id as number } },
      mgmt_availabilities: { all: {} },
      mgmt_availability: { us: { region: "us-east" } },
      mgmt_child_accounts: { all: { filter: [f("country", ["US"])] } },
      mgmt_child_account: { one: { euuid: child!.euuid as string } },
      mgmt_account_logins: { all: {} },
      mgmt_profile_logins: { all: {} },
      mgmt_maintenance: { all: {} },
      mgmt_notifications: { all: {} },
      mgmt_payment_methods: { all: {} },
      mgmt_ssh_keys: { all: {} },
      mgmt_ssh_key: { by_label: { label: key!.label as string } },
      mgmt_tokens: { all: {} },
      mgmt_oauth_clients: { e2e: { filter: [f("label", ["E2E"], "substring")] } },
      mgmt_tags: { all: {} },
      mgmt_tag: { production: { label: "production" } },
      mgmt_grants: { mine: {} },
      mgmt_trusted_devices: { all: {} },
      mgmt_authorized_apps: { all: {} },
    });
    // No init: dev_overrides point the engine at bin/, and init would look the provider up in a registry.
    await ok("apply", "-no-color", "-auto-approve");
    const show = JSON.parse((await ok("show", "-json")).stdout) as StateJson;
    data = Object.fromEntries(
      (show.values?.root_module?.resources ?? []).filter((r) => r.mode === "data").map((r) => [r.address.replace(/^data\./, ""), r.values]),
    );
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reads all of them", () => {
    expect(
      Object.keys(data)
        .map((a) => a.split(".")[0])
        .sort(),
    ).toEqual(dataSources.map((d) => d.typeName).sort());
  });

  it("shows lists exactly as the API lists them, filters applied", async () => {
    const lists: [string, string, string, string[]][] = [
      ["mgmt_availabilities.all", "/account/availability", "availabilities", []],
      ["mgmt_account_logins.all", "/account/logins", "logins", []],
      ["mgmt_profile_logins.all", "/profile/logins", "logins", []],
      ["mgmt_maintenance.all", "/account/maintenance", "maintenance", []],
      ["mgmt_notifications.all", "/account/notifications", "notifications", []],
      ["mgmt_payment_methods.all", "/account/payment-methods", "payment_methods", []],
      ["mgmt_ssh_keys.all", "/profile/sshkeys", "ssh_keys", []],
      ["mgmt_tokens.all", "/profile/tokens", "tokens", ["token"]],
      ["mgmt_tags.all", "/tags", "tags", []],
      ["mgmt_trusted_devices.all", "/profile/devices", "trusted_devices", []],
      ["mgmt_authorized_apps.all", "/profile/apps", "authorized_apps", []],
    ];
    for (const [address, path, items, omit] of lists) {
      expect({ address, diff: differences(await all(path), data[address]![items], omit) }).toEqual({ address, diff: [] });
    }
    const events = (await all("/account/events")).filter((e) => e.action === "oauth_client_create" || e.action === "token_create").reverse();
    expect(events.length).toBe(2);
    expect(differences(events, data["mgmt_events.recent"]!.events)).toEqual([]);
    const children = (await all("/account/child-accounts")).filter((c) => c.country === "US");
    expect(differences(children, data["mgmt_child_accounts.all"]!.child_accounts)).toEqual([]);
    const clients = (await all("/account/oauth-clients")).filter((c) => (c.label as string).includes("E2E"));
    expect(clients).toHaveLength(1);
    expect(differences(clients, data["mgmt_oauth_clients.e2e"]!.oauth_clients, ["secret"])).toEqual([]);
    const invoices = data["mgmt_invoices.all"]!.invoices as ObjectValue[];
    expect(
      differences(
        await all("/account/invoices"),
        invoices.map(({ items: _items, ...rest }) => rest),
      ),
    ).toEqual([]);
    for (const invoice of invoices) expect(differences(await all(`/account/invoices/${String(invoice.id)}/items`), invoice.items)).toEqual([]);
  });

  it("shows single objects exactly as the API does", async () => {
    const strip = (v: ObjectValue, ...names: string[]) => Object.fromEntries(Object.entries(v).filter(([k]) => !names.includes(k)));
    const profile = await api("GET", "/profile");
    expect(differences(profile, strip(data["mgmt_profile.me"]!, "id"))).toEqual([]);
    expect(differences(await api("GET", "/account"), strip(data["mgmt_account.this"]!, "id"))).toEqual([]);
    const event = data["mgmt_event.one"]!;
    expect(differences(await api("GET", `/account/events/${String(event.id)}`), event)).toEqual([]);
    const invoice = data["mgmt_invoice.one"]!;
    expect(differences(await api("GET", `/account/invoices/${String(invoice.id)}`), strip(invoice, "items"))).toEqual([]);
    expect(differences(await api("GET", "/account/availability/us-east"), strip(data["mgmt_availability.us"]!, "id"))).toEqual([]);
    const child = data["mgmt_child_account.one"]!;
    expect(differences(await api("GET", `/account/child-accounts/${String(child.euuid)}`), strip(child, "id"))).toEqual([]);
    const key = data["mgmt_ssh_key.by_label"]!;
    expect(differences(await api("GET", `/profile/sshkeys/${String(key.id)}`), key)).toEqual([]);
    const tagged = (await all("/tags/production")) as { type: string; data: Record<string, unknown> }[];
    for (const [type, group] of [
      ["compute", "computes"],
      ["domain", "domains"],
      ["volume", "volumes"],
      ["nodebalancer", "nodebalancers"],
    ]) {
      const expected = tagged.filter((o) => o.type === type).map((o) => o.data);
      expect(expected.length).toBeGreaterThan(0);
      expect({ group, diff: differences(expected, data["mgmt_tag.production"]![group!]) }).toEqual({ group, diff: [] });
    }
    expect(data["mgmt_grants.mine"]).toMatchObject({ restricted: false, global: null });
  });

  it("keeps token values and client secrets out of state", async () => {
    const state = JSON.stringify(data);
    for (const t of await all("/profile/tokens")) expect(state).not.toContain(t.token as string);
    expect(state).not.toMatch(/REDACTED|"secret"/);
  });

  it("refuses at plan a filter on an unknown field, and a token without the scope, naming what to fix", async () => {
    writeConfig({ mgmt_tags: { bad: { filter: [f("label", ["x"]), f("colour", ["red"], "exact")] } } });
    const bad = await run(["plan", "-no-color"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/filter 2 \(name = "colour"\): no such field/);

    const limited = (await api("POST", "/profile/tokens", { label: "no events", scopes: "account:read_only" })).token as string;
    writeConfig({ mgmt_events: { recent: { limit: 5 } } });
    const refused = await run(["plan", "-no-color"], { MGMT_TOKEN: limited });
    expect(refused.code).toBe(1);
    expect(refused.stderr.replace(/\s+/g, " ")).toContain('accepts OAuth scope "events:read_only"');
  });
});
