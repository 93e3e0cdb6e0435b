/** @tier engine */
/**
 * Child accounts through real engines against a real `mgmt serve`, behind a recording proxy that
 * collects every bearer token the provider sends:
 * - Terraform (protocol 6.7+): the ephemeral proxy token configures an aliased provider that
 *   reads the child's profile; afterwards no token is in state, plan, `show -json`, trace logs
 *   or output, and the server holds no live proxy token. Provider functions as outputs.
 * - Every engine (OpenTofu 1.6 too): child-account mode creates keys inside the child account
 *   while the server's clock jumps past the proxy token's expiry between two resources; the
 *   apply succeeds, and the server shows the renewal and the final revocation.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { liveProxyTokens, seedChildAccount, type SeededChild } from "../support/child-account";
import { FaultProxy } from "../../testkit/fault-proxy";
import { EngineStack } from "./stack";

const ADMIN_TOKEN = "e2e-admin-child-accounts-4f1d";
const ED25519_A = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAID3iYkxQ8X2JM3dpXbmZgqONUsxbADkm3/WOQ4dBKetQ ann@laptop";
const ED25519_B = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ9w0vL3ePqBvIoGgQ1d0Ck4i2H3mVdQv2zJk0eY4kOs";

const count = (proxy: FaultProxy, request: string) => proxy.counters.seen.filter((s) => s === request).length;

interface Setup {
  stack: EngineStack;
  proxy: FaultProxy;
  child: SeededChild;
}

async function setUp(engine: Engine): Promise<Setup> {
  const stack = await EngineStack.start(engine, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
  const proxy = await FaultProxy.start(stack.server.url);
  stack.pointAt(proxy.url);
  return { stack, proxy, child: await seedChildAccount(stack.server.url, ADMIN_TOKEN, "E2E Child") };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  await s?.child.proxy.close();
  await s?.proxy.close();
  await s?.stack.stop();
}

const terraform = availableEngines().find((e) => e.name === "terraform");

(terraform ? describe : describe.skip)("terraform: ephemeral mgmt_child_account_token and provider functions", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(terraform!);
  }, 120_000);
  afterAll(() => tearDown(s));

  test("an aliased provider acts in the child account for the run; no token survives it anywhere", async () => {
    const { stack, proxy, child } = s;
    stack.write({
      provider: { mgmt: [{}, { alias: "child", token: "${ephemeral.mgmt_child_account_token.c.token}" }] },
      ephemeral: { mgmt_child_account_token: { c: { euuid: child.euuid } } },
      data: { mgmt_profile: { child: { provider: "mgmt.child" } } },
      output: {
        child_username: { value: "${data.mgmt_profile.child.username}" },
        fingerprint: { value: `\${provider::mgmt::ssh_key_fingerprint("${ED25519_A}")}` },
        normalized: { value: `\${provider::mgmt::ssh_key_normalize("  ${ED25519_A}  ")}` },
        scopes: { value: '${provider::mgmt::scopes_normalize("events:read_only account:read_write events:read_only")}' },
      },
    });
    const trace = join(stack.dir, "trace.log");
    stack.env = { ...stack.env, TF_LOG: "trace", TF_LOG_PATH: trace };
    await stack.ok("plan", "-out=plan.out");
    await stack.ok("apply", "plan.out");
    const outputs = JSON.parse((await stack.ok("output", "-json")).stdout) as Record<string, { value: string }>;
    // The proxy user: named from the parent's company and a hash of the child's euuid.
    expect(outputs.child_username!.value).toMatch(/_[0-9a-f]{16}$/);
    expect(outputs.child_username!.value).not.toBe((await stack.client.getProfile()).username);
    expect(outputs.fingerprint!.value).toBe("SHA256:zJCaaHuO7tpRrw5lMEaxApgdOl8t/7coZOfnd/5CJmE");
    expect(outputs.normalized!.value).toBe(ED25519_A.split(" ").slice(0, 2).join(" "));
    expect(outputs.scopes!.value).toBe("events:read_only account:read_write");

    // Plan and apply each opened a token and closed it; none is alive on the server.
    expect(count(proxy, `POST /account/child-accounts/${child.euuid}/token`)).toBe(2);
    expect(await liveProxyTokens(child)).toEqual([]);

    const proxyTokens = [...proxy.counters.bearers].filter((t) => t !== stack.server.token);
    expect(proxyTokens).toHaveLength(2);
    const written = [
      readFileSync(join(stack.dir, "terraform.tfstate"), "utf8"),
      readFileSync(trace, "utf8"),
      JSON.stringify(await stack.json("plan.out")),
      JSON.stringify(await stack.stateJson()),
      ...stack.transcript,
    ];
    expect(readFileSync(trace, "utf8")).toContain("OpenEphemeralResource");
    for (const token of proxyTokens) for (const text of written) expect(text.includes(token)).toBe(false);
  }, 240_000);

  test("a function error names the function and the parameter", async () => {
    s.stack.write({ output: { bad: { value: '${provider::mgmt::scopes_normalize("account:write")}' } } });
    const r = await s.stack.run("plan");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("while calling provider::mgmt::scopes_normalize(scopes)");
    expect(r.stderr.replace(/\s+/g, " ")).toContain(`Invalid value for "scopes" parameter: 'account:write' is not a valid scope`);
  }, 120_000);
});

describe.each(availableEngines())("$name: provider child-account mode", (engine: Engine) => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(engine);
  }, 120_000);
  afterAll(() => tearDown(s));

  test("an apply that outlives the proxy token on the server's clock succeeds, renewing it, and revokes the last", async () => {
    const { stack, proxy, child } = s;
    const advance = `node -e 'fetch(process.argv[1], { method: "POST", headers: { authorization: "Bearer ${ADMIN_TOKEN}", "content-type": "application/json" }, body: JSON.stringify({ seconds: 1200 }) }).then((r) => process.exit(r.ok ? 0 : 1))' ${stack.server.url.replace(/\/v4$/, "/__admin/clock/advance")}`;
    stack.write({
      provider: { mgmt: { child_account: { euuid: child.euuid } } },
      resource: {
        mgmt_ssh_key: {
          a: { label: "child-a", ssh_key: ED25519_A },
          b: { label: "child-b", ssh_key: ED25519_B, depends_on: ["terraform_data.twenty_minutes_later"] },
        },
        // Between the two keys the server's clock jumps 20 minutes: past the 15-minute token.
        terraform_data: { twenty_minutes_later: { depends_on: ["mgmt_ssh_key.a"], provisioner: { "local-exec": { command: advance } } } },
      },
    });
    await stack.ok("apply", "-auto-approve");

    const keys: string[] = [];
    for await (const k of child.proxy.listSshKeys()) keys.push(k.label);
    expect(keys.sort()).toEqual(["child-a", "child-b"]);
    for await (const k of stack.client.listSshKeys()) expect(k.label).not.toMatch(/^child-/);

    // The first request for key b after the jump met the expired token (401): the create, or the
    // listing its plan reads for a twin first (twins.ts). A fresh token was minted and that request
    // repeated once, so key b was created with it. Every token minted along the way is revoked or
    // expired by the end.
    const seen = proxy.counters.seen;
    const creates = seen.flatMap((r, i) => (r === "POST /profile/sshkeys" ? [i] : []));
    const mint = `POST /account/child-accounts/${child.euuid}/token`;
    const afterA = seen.slice(creates[0]! + 1, creates.at(-1));
    expect(afterA).toContain(mint);
    const retried = afterA[afterA.indexOf(mint) - 1];
    expect(afterA.slice(afterA.indexOf(mint) + 1).concat(seen[creates.at(-1)!]!)).toContain(retried);
    expect(creates.length).toBe(retried === "POST /profile/sshkeys" ? 3 : 2);
    expect(await liveProxyTokens(child)).toEqual([]);
  }, 240_000);
});
