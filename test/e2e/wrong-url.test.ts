/** @tier engine */
/**
 * Real engines against a real `mgmt serve`, with the stack pointed where the API is not: the
 * root without /v4, the bare origin, a wrong path, another HTTP server answering 404 to
 * everything; with a wrong token; with nothing listening. Every plan fails with a message
 * saying what to change, no object leaves the state, and the next plan with the right URL and
 * token shows no changes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { availableEngines, runEngine, type Engine } from "../../src/harness/engine";
import { closedPort } from "../../testkit/closed-port";
import { runMgmt } from "../report/run-mgmt";
import { sshKeyText } from "../../testkit/ssh-keys";
import { EngineStack } from "./stack";

jest.setTimeout(600_000);

/** Another HTTP server: JSON 404 for every request, as a misrouted proxy or a wrong port would answer. */
async function notTheApi(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ errors: [{ reason: "Not found" }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v4`, server };
}

describe.each(availableEngines())("$name never loses state to a wrong URL, token or a down API", (engine: Engine) => {
  let stack: EngineStack;
  let other: { url: string; server: Server };
  let url: string;
  let addresses: string;
  let stackResources: Record<string, unknown>;

  const stateList = async () => {
    const r = await runEngine(stack.engine, ["state", "list"], stack.dir, stack.env);
    expect(r.code).toBe(0);
    return r.stdout;
  };
  /** A plan with these settings fails, the state keeps every object, and the output says `expected`. */
  const failsKeepingState = async (env: NodeJS.ProcessEnv, expected: RegExp, provider: Record<string, unknown> = {}) => {
    const saved = stack.env;
    stack.env = { ...stack.env, ...env };
    stack.write({ provider: { mgmt: provider }, ...stackResources });
    const r = await stack.run("plan");
    stack.env = saved;
    // The engines wrap long lines.
    const output = (r.stdout + r.stderr).replace(/\s+/g, " ");
    expect([r.code, output]).toEqual([1, expect.stringMatching(expected)]);
    expect(output).not.toMatch(/no longer exists|Plan: \d+ to add/);
    expect(await stateList()).toBe(addresses);
    return output;
  };

  beforeAll(async () => {
    stack = await EngineStack.start(engine);
    other = await notTheApi();
    url = stack.server.url;
    const computes: number[] = [];
    for await (const o of stack.client.listTaggedObjects("production")) if (o.type === "compute") computes.push(o.data.id);
    stackResources = {
      resource: {
        mgmt_ssh_key: { k: { label: "laptop", ssh_key: sshKeyText("ed25519", "wrong-url") } },
        mgmt_token: { ci: { label: "ci", scopes: "account:read_only" } },
        mgmt_oauth_client: { app: { label: "dashboard", redirect_uri: "https://example.com/callback" } },
        mgmt_tag: { team: { label: "url-team", computes: computes.slice(0, 1) } },
        mgmt_account_contact: { me: { city: "Philadelphia", country: "US", state: "PA", zip: "19106" } },
        mgmt_profile_settings: { me: { timezone: "Europe/Berlin" } },
      },
    };
    stack.write(stackResources);
    await stack.ok("apply", "-auto-approve");
    addresses = await stateList();
    expect(addresses.trim().split("\n")).toHaveLength(6);
  });
  afterAll(async () => {
    other?.server.close();
    await stack?.stop();
  });

  const origin = () => url.replace(/\/v4$/, "");

  it.each([
    ["the origin", () => origin(), /The API root ends in its version: use http:\/\/127\.0\.0\.1:\d+\/v4/],
    ["the root with a trailing slash and no version", () => `${origin()}/`, /The API root ends in its version/],
    ["a wrong path", () => `${origin()}/v3`, /\/v3 does not answer as the Management API/],
    ["another HTTP server", () => other.url, /does not answer as the Management API \(GET \/profile answered \[404\] Not found\)/],
  ])("%s: the plan fails at configure, naming the URL and the fix", async (_name, at, expected) => {
    const out = await failsKeepingState({ MGMT_URL: at() }, expected);
    expect(out).toContain("Not the Management API");
    expect(out).toContain("Set MGMT_URL accordingly");
  });

  it("with the configure check skipped, the reads themselves refuse to take the wrong URL's 404s for deletions", async () => {
    await failsKeepingState({ MGMT_URL: origin() }, /does not answer as the Management API/, { skip_credentials_validation: true });
    await failsKeepingState({ MGMT_URL: other.url }, /does not answer as the Management API/, { skip_credentials_validation: true });
  });

  it("a wrong token fails the plan, naming MGMT_TOKEN, the URL and the API's reason", async () => {
    const out = await failsKeepingState({ MGMT_TOKEN: "not-a-real-token" }, /Invalid API token/);
    expect(out).toContain(`The API at ${url} refused the token from MGMT_TOKEN: Invalid Token (HTTP 401)`);
    expect(out).not.toContain("not-a-real-token");
  });

  it("a wrong token in the configuration is named as the token attribute", async () => {
    const out = await failsKeepingState({}, /Invalid API token/, { token: "not-a-real-token" });
    expect(out).toContain("refused the token from the provider's token attribute");
  });

  it("a down API fails the plan saying what to check and to start `mgmt serve`", async () => {
    const down = `http://127.0.0.1:${await closedPort()}/v4`;
    const out = await failsKeepingState({ MGMT_URL: down }, /Cannot reach the Management API/);
    expect(out).toContain(`nothing answers at ${down}; check the API URL, or start the local API (\`mgmt serve\`). The url comes from MGMT_URL.`);
  });

  it("mgmt drift with a URL that is not the API fails (exit 1) naming the fix, and reports no deletions", async () => {
    for (const unmanaged of [[], ["--unmanaged"]]) {
      const r = await runMgmt(["drift", "--dir", stack.dir, "--engine", engine.name, ...unmanaged], { env: { ...stack.env, MGMT_URL: origin() } });
      const output = (r.stdout + r.stderr).replace(/\s+/g, " ");
      expect([unmanaged, r.code, output]).toEqual([unmanaged, 1, expect.stringMatching(/The API root ends in its version: use http:\/\/127\.0\.0\.1:\d+\/v4/)]);
      expect(output).not.toMatch(/deleted outside/i);
    }
    expect(await stateList()).toBe(addresses);
  });

  it("the right URL and token plan no changes afterwards", async () => {
    stack.write(stackResources);
    await stack.expectNoChanges();
  });
});
