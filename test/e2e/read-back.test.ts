/** @tier engine */
/**
 * Creates the API acknowledged are never lost to a later step that fails. The server's fault
 * injection (admin namespace) fails the reads that follow each create; the apply fails, yet
 * every created object is in state (tainted where a step failed), the next apply converges,
 * and the API holds exactly one of each. A tag a lost apply left behind is adopted.
 */
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { PNG_1X1 } from "../support/images";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack } from "./stack";

jest.setTimeout(600_000);

const ADMIN_TOKEN = "e2e-admin-read-back-7c2a";

describe.each(availableEngines())("$name keeps every acknowledged create in state when its read-back fails", (engine: Engine) => {
  let stack: EngineStack;
  let computes: number[];

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(stack.server.url.replace(/\/v4$/, "/__admin") + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(200);
  };
  const stateList = async () => {
    const r = await runEngine(stack.engine, ["state", "list"], stack.dir, stack.env);
    expect(r.code).toBe(0);
    return r.stdout.trim().split("\n").sort();
  };
  const labels = async <T extends { label: string }>(items: AsyncIterable<T>, prefix: string) => {
    const out: string[] = [];
    for await (const i of items) if (i.label.startsWith(prefix)) out.push(i.label);
    return out.sort();
  };

  beforeAll(async () => {
    stack = await EngineStack.start(engine, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
    computes = [];
    for await (const o of stack.client.listTaggedObjects("production")) if (o.type === "compute") computes.push(o.data.id);
  });
  afterAll(() => stack?.stop());

  it("a failed read after each create: the apply fails, every object stays in state, the next apply converges with no duplicate", async () => {
    stack.write({
      // An explicit cap, so the injected failures outlast the retries.
      provider: { mgmt: { max_retries: 1, retry_min_delay_ms: 10, retry_max_delay_ms: 20 } },
      resource: {
        mgmt_ssh_key: { k: { label: "rb-key", ssh_key: sshKeyText("ed25519", `read-back-${engine.name}`) } },
        mgmt_token: { t: { label: "rb-token", scopes: "account:read_only" } },
        mgmt_oauth_client: { c: { label: "rb-client", redirect_uri: "https://example.com/cb", thumbnail: PNG_1X1 } },
        mgmt_tag: { g: { label: "rb-tag", computes: computes.slice(0, 1) } },
        mgmt_account_contact: { me: { city: "Philadelphia", country: "US", state: "PA", zip: "19106" } },
        mgmt_profile_settings: { me: { timezone: "Europe/Berlin" } },
      },
    });
    for (const route of ["/v4/profile/sshkeys/*", "/v4/profile/tokens/*", "/v4/account/oauth-clients/*", "/v4/tags/*"]) {
      await admin("POST", "/faults", { route, method: "GET", status: 503, times: 2 });
    }
    const failed = await stack.run("apply", "-auto-approve");
    expect(failed.code).toBe(1);
    const output = (failed.stdout + failed.stderr).replace(/\s+/g, " ");
    expect(output).toMatch(/Error: Failed to apply mgmt_tag .*GET \/tags\/rb-tag\?page=1&page_size=500: \[503\]/);
    expect(output).toMatch(/Error: Failed to apply mgmt_oauth_client .*GET \/account\/oauth-clients\/\S+: \[503\]/);
    await admin("DELETE", "/faults");
    expect(await stateList()).toEqual([
      "mgmt_account_contact.me",
      "mgmt_oauth_client.c",
      "mgmt_profile_settings.me",
      "mgmt_ssh_key.k",
      "mgmt_tag.g",
      "mgmt_token.t",
    ]);
    const plan = await stack.plan();
    expect(plan.actions).toEqual({ "mgmt_oauth_client.c": ["delete", "create"], "mgmt_tag.g": ["delete", "create"] });
    await stack.ok("apply", "-auto-approve", "plan.out");
    await stack.expectNoChanges();
    expect(await labels(stack.client.listSshKeys(), "rb-")).toEqual(["rb-key"]);
    expect(await labels(stack.client.listTokens(), "rb-")).toEqual(["rb-token"]);
    expect(await labels(stack.client.listOAuthClients(), "rb-")).toEqual(["rb-client"]);
    expect(await labels(stack.client.listTags(), "rb-")).toEqual(["rb-tag"]);
  });

  it("a tag a lost apply left behind, with the configured objects, is adopted instead of failing every apply with 'already exists'", async () => {
    await stack.client.createTag({ label: "rb-orphan", computes: computes.slice(0, 1) });
    stack.write({ resource: { mgmt_tag: { o: { label: "rb-orphan", computes: computes.slice(0, 1) } } } });
    const r = await stack.ok("apply", "-auto-approve");
    expect((r.stdout + r.stderr).replace(/\s+/g, " ")).toContain('mgmt_tag "rb-orphan" adopted: it existed already');
    await stack.expectNoChanges();
  });

  it("a tag with the label but other objects is not adopted: the API's refusal stands", async () => {
    await stack.client.createTag({ label: "rb-other", computes: computes.slice(0, 1) });
    stack.write({ resource: { mgmt_tag: { o: { label: "rb-other", computes: computes.slice(0, 2) } } } });
    const r = await stack.run("apply", "-auto-approve");
    expect(r.code).toBe(1);
    expect((r.stdout + r.stderr).replace(/\s+/g, " ")).toContain("A tag with this label already exists");
  });
});
