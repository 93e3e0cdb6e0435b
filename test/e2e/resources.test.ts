/** @tier engine */
/**
 * Real engines (OpenTofu from npm, Terraform when on PATH) driving every managed resource
 * against a real `mgmt serve`, all in one stack: create, no-op re-plan, in-place update,
 * replacement, out-of-band change and delete, import blocks with generated config, refusal at
 * plan, destroy; and the secrets never printed, logged or stored unmarked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { PNG_1X1 } from "../support/images";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack, type PlanJson } from "./stack";

jest.setTimeout(300_000);

/** Removes every value at a path marked sensitive (`true` in the *_sensitive tree), so what is left is what an engine shows unmarked. */
function unmarked(value: unknown, sensitive: unknown): unknown {
  if (sensitive === true) return "(sensitive)";
  if (Array.isArray(value)) return value.map((v, i) => unmarked(v, Array.isArray(sensitive) ? sensitive[i] : undefined));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmarked(v, (sensitive as Record<string, unknown> | undefined)?.[k])]));
  }
  return value;
}

/** What the in-place steps change: everything but the tag. */
const IN_PLACE = {
  "mgmt_token.ci": ["update"],
  "mgmt_oauth_client.app": ["update"],
  "mgmt_account_contact.me": ["update"],
  "mgmt_profile_settings.me": ["update"],
};

describe.each(availableEngines())("$name drives every managed resource end to end", (engine: Engine) => {
  let stack: EngineStack;
  let computes: number[];
  const secrets = new Set<string>();

  const resources = (
    o: { tokenLabel?: string; scopes?: string; clientLabel?: string; secretVersion?: number; computes?: number[]; city?: string; timezone?: string } = {},
  ) => ({
    resource: {
      mgmt_token: { ci: { label: o.tokenLabel ?? "ci", scopes: o.scopes ?? "account:read_only events:read_only", expires_in: "2160h", renew_before: "720h" } },
      mgmt_oauth_client: {
        app: { label: o.clientLabel ?? "dashboard", redirect_uri: "https://example.com/callback", thumbnail: PNG_1X1, secret_version: o.secretVersion ?? 1 },
      },
      mgmt_tag: { team: { label: "e2e-team", computes: o.computes ?? computes.slice(0, 1) } },
      mgmt_account_contact: { me: { city: o.city ?? "Philadelphia", country: "US", state: "PA", zip: "19106" } },
      mgmt_profile_settings: { me: { timezone: o.timezone ?? "Europe/Berlin" } },
    },
    output: { token: { value: "${mgmt_token.ci.token}", sensitive: true } },
  });
  const ids = async () => {
    const s = await stack.state();
    const remember = (v: unknown) => typeof v === "string" && v.length > 0 && secrets.add(v);
    remember(s["mgmt_token.ci"]?.token);
    remember(s["mgmt_oauth_client.app"]?.secret);
    return { token: Number(s["mgmt_token.ci"]!.id), client: String(s["mgmt_oauth_client.app"]!.id), state: s };
  };

  beforeAll(async () => {
    stack = await EngineStack.start(engine);
    computes = [];
    for await (const o of stack.client.listTaggedObjects("production")) if (o.type === "compute") computes.push(o.data.id);
    expect(computes.length).toBeGreaterThanOrEqual(2);
  });
  afterAll(() => stack?.stop());

  it("creates every resource, then plans no changes", async () => {
    stack.write(resources());
    const plan = await stack.plan();
    expect(plan.actions).toEqual({
      "mgmt_token.ci": ["create"],
      "mgmt_oauth_client.app": ["create"],
      "mgmt_tag.team": ["create"],
      "mgmt_account_contact.me": ["create"],
      "mgmt_profile_settings.me": ["create"],
    });
    await stack.ok("apply", "-auto-approve");
    const { token, client, state } = await ids();
    expect(state["mgmt_token.ci"]).toMatchObject({ label: "ci", scopes: "account:read_only events:read_only", expiry: expect.stringMatching(/Z$/) });
    expect(await stack.client.getToken(token)).toMatchObject({ label: "ci" });
    expect(await stack.client.getOAuthClient(client)).toMatchObject({ label: "dashboard", thumbnail_url: expect.stringMatching(/thumbnail$/) });
    expect(await stack.client.getAccount()).toMatchObject({ city: "Philadelphia", zip: "19106" });
    expect((await stack.client.getProfile()).timezone).toBe("Europe/Berlin");
    await stack.expectNoChanges();
  });

  it("updates labels, the client secret, the city and the time zone in place", async () => {
    const before = await ids();
    stack.write(resources({ tokenLabel: "ci-renamed", clientLabel: "dashboard-2", secretVersion: 2, city: "Pittsburgh", timezone: "UTC" }));
    expect((await stack.plan()).actions).toEqual(IN_PLACE);
    await stack.ok("apply", "-auto-approve");
    const after = await ids();
    expect([after.token, after.client]).toEqual([before.token, before.client]);
    expect(after.state["mgmt_oauth_client.app"]!.secret).not.toBe(before.state["mgmt_oauth_client.app"]!.secret);
    expect(after.state["mgmt_token.ci"]!.token).toBe(before.state["mgmt_token.ci"]!.token);
    await stack.expectNoChanges();
  });

  it("replaces the token when its scopes really change and the tag when its objects change; reordered scopes are no change", async () => {
    const base = { tokenLabel: "ci-renamed", clientLabel: "dashboard-2", secretVersion: 2, city: "Pittsburgh", timezone: "UTC" };
    stack.write(resources({ ...base, scopes: "events:read_only account:read_only" }));
    await stack.expectNoChanges();
    const before = await ids();
    stack.write(resources({ ...base, scopes: "account:read_write", computes: computes.slice(0, 2) }));
    expect((await stack.plan()).actions).toEqual({ "mgmt_token.ci": ["delete", "create"], "mgmt_tag.team": ["delete", "create"] });
    await stack.ok("apply", "-auto-approve");
    const after = await ids();
    expect(after.token).not.toBe(before.token);
    await expect(stack.client.getToken(before.token)).rejects.toMatchObject({ status: 404 });
    expect(after.state["mgmt_tag.team"]!.computes).toEqual(expect.arrayContaining(computes.slice(0, 2)));
    await stack.expectNoChanges();
  });

  it("repairs out-of-band changes, a tag made again with other objects among them", async () => {
    const { token, client } = await ids();
    // The engine keeps the tag's private state: when its objects were last read, for batched refreshes.
    const raw = JSON.parse(readFileSync(join(stack.dir, "terraform.tfstate"), "utf8")) as { resources: { type: string; instances: { private?: string }[] }[] };
    const tagPrivate = raw.resources.find((r) => r.type === "mgmt_tag")!.instances[0]!.private!;
    expect(JSON.parse(Buffer.from(tagPrivate, "base64").toString("utf8"))).toEqual({ objects_read_at: expect.stringMatching(/^\d{4}-.*Z$/) });

    await stack.client.updateToken(token, { label: "by hand" });
    await stack.client.updateOAuthClient(client, { label: "by hand" });
    await stack.client.updateAccount({ city: "Boston" });
    await stack.client.updateProfile({ timezone: "Asia/Tokyo" });
    await stack.client.deleteTag("e2e-team");
    await stack.client.createTag({ label: "e2e-team", computes: computes.slice(0, 1) });
    expect((await stack.plan()).actions).toEqual({ ...IN_PLACE, "mgmt_tag.team": ["delete", "create"] });
    await stack.ok("apply", "-auto-approve");
    expect((await stack.client.getToken(token)).label).toBe("ci-renamed");
    expect((await stack.client.getAccount()).city).toBe("Pittsburgh");
    await stack.expectNoChanges();
  });

  it("re-creates objects deleted out of band, warning that they were removed from state", async () => {
    const { token, client } = await ids();
    await stack.client.revokeToken(token);
    await stack.client.deleteOAuthClient(client);
    await stack.client.deleteTag("e2e-team");
    const plan = await stack.plan();
    expect(plan.actions).toEqual({ "mgmt_token.ci": ["create"], "mgmt_oauth_client.app": ["create"], "mgmt_tag.team": ["create"] });
    expect(plan.output).toContain(`mgmt_token "${token}" no longer exists`);
    expect(plan.output).toContain(`mgmt_oauth_client "${client}" no longer exists`);
    expect(plan.output).toContain(`mgmt_tag "e2e-team" no longer exists`);
    await stack.ok("apply", "-auto-approve");
    await ids();
    await stack.expectNoChanges();
  });

  it("imports objects made elsewhere with import blocks and generated config, then plans no changes", async () => {
    const token = await stack.client.createToken({ label: "made elsewhere", scopes: "events:read_only" });
    const client = await stack.client.createOAuthClient({ label: "elsewhere", redirect_uri: "https://example.net/cb", public: true });
    await stack.client.createTag({ label: "e2e-imported", domains: [] });
    const key = await stack.client.createSshKey({ label: "elsewhere", ssh_key: sshKeyText("ed25519", "made@elsewhere") });
    stack.write(
      {
        import: [
          { to: "mgmt_token.imported", id: String(token.id) },
          { to: "mgmt_oauth_client.imported", id: client.id },
          { to: "mgmt_tag.imported", id: "e2e-imported" },
          { to: "mgmt_profile_settings.imported", id: "profile" },
          { to: "mgmt_account_contact.imported", id: "account" },
          { to: "mgmt_ssh_key.imported", id: String(key.id) },
        ],
      },
      "imports.tf.json",
    );
    const generate = await stack.run("plan", "-generate-config-out=generated.tf");
    expect(generate.code).toBe(0);
    const generated = readFileSync(join(stack.dir, "generated.tf"), "utf8");
    expect(generated).toContain('resource "mgmt_token" "imported"');
    expect(generated).not.toMatch(/^\s*token\s*=/m);
    await stack.ok("apply", "-auto-approve");
    const state = await stack.state();
    expect(state["mgmt_token.imported"]).toMatchObject({ id: String(token.id), label: "made elsewhere", token: null });
    expect(state["mgmt_oauth_client.imported"]).toMatchObject({ id: client.id, public: true, secret: null });
    expect(state["mgmt_ssh_key.imported"]).toMatchObject({ id: String(key.id), label: "elsewhere" });
    expect(state["mgmt_account_contact.imported"]).toMatchObject({ id: (await stack.client.getAccount()).euuid });
    await stack.expectNoChanges();
  });

  it("refuses invalid values at plan, naming each attribute", async () => {
    const valid = resources();
    stack.write({
      ...valid,
      resource: {
        mgmt_token: { ci: { label: "" } },
        mgmt_oauth_client: { app: { label: "x", redirect_uri: "not a url" } },
        mgmt_tag: { team: { label: "ab" } },
        mgmt_account_contact: { me: { country: "US", zip: "ABCDE" } },
        mgmt_profile_settings: { me: { ip_whitelist_enabled: true } },
      },
    });
    const r = await stack.run("plan");
    expect(r.code).toBe(1);
    for (const [summary, address] of [
      ["Invalid label", "mgmt_token.ci"],
      ["Invalid redirect_uri", "mgmt_oauth_client.app"],
      ["Invalid label", "mgmt_tag.team"],
      ["Invalid zip", "mgmt_account_contact.me"],
      ["Invalid ip_whitelist_enabled", "mgmt_profile_settings.me"],
    ]) {
      expect(r.stderr).toMatch(new RegExp(`Error: ${summary}\\s+with ${address.replace(".", "\\.")}`));
    }
  });

  it("never shows a secret: not in any output, not in a trace log, not unmarked in JSON", async () => {
    stack.write(resources());
    const planned = await stack.run("plan", "-out=secret.plan");
    const trace = await runEngine(engine, ["plan", "-no-color"], stack.dir, { ...stack.env, TF_LOG: "trace" });
    expect(planned.code).toBe(0);
    expect(trace.code).toBe(0);
    // Every API request is in the provider log at debug: the batched read of the tokens among them.
    expect(trace.stderr).toMatch(/GET \/profile\/tokens(\?page=1\S*)? 200/);
    const plan = await stack.json<PlanJson>("secret.plan");
    const state = await stack.stateJson();
    const shown = JSON.stringify([
      (plan.resource_changes ?? []).map((c) => [unmarked(c.change.before, c.change.before_sensitive), unmarked(c.change.after, c.change.after_sensitive)]),
      (state.values?.root_module?.resources ?? []).map((r) => unmarked(r.values, r.sensitive_values)),
    ]);
    const printed = [...stack.transcript, trace.stdout, trace.stderr].join("\n");
    expect(secrets.size).toBeGreaterThanOrEqual(3);
    for (const secret of secrets) {
      expect(printed).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }
  });

  it("destroys what it manages and forgets the singletons", async () => {
    stack.write(resources(), "main.tf.json");
    const { token, client } = await ids();
    const account = await stack.client.getAccount();
    const r = await stack.ok("destroy", "-auto-approve");
    expect(r.stdout + r.stderr).toContain("removed from state only");
    await expect(stack.client.getToken(token)).rejects.toMatchObject({ status: 404 });
    await expect(stack.client.getOAuthClient(client)).rejects.toMatchObject({ status: 404 });
    expect(await stack.client.getAccount()).toEqual(account);
  });
});
