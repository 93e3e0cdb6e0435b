/** @tier cli */
/**
 * SIGTERM while an apply is writing (a cancelled CI job may signal the whole process group, the
 * plugin included): the built plugin stops as on StopProvider, answers the write it had already
 * sent with the object the API made, and only then exits. A plugin that died at once would leave
 * that object in the API and in no state. Against a real `mgmt serve` holding each create a while.
 */
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import type { ObjectValue } from "../../src/provider/framework/value";
import { sshKeyText } from "../../testkit/ssh-keys";
import { PluginHarness } from "../../testkit/plugin-harness";

const ADMIN_TOKEN = "plugin-sigterm-admin-2f8b";

let server: RunningServer;
let plugin: PluginHarness | undefined;

const admin = async (method: string, path: string, body?: unknown): Promise<unknown> => {
  const res = await fetch(server.url.replace(/\/v4$/, "/__admin") + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return res.json();
};

beforeAll(async () => {
  server = await startServe(undefined, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(async () => {
  await plugin?.kill();
  await server?.stop();
});

it("answers the create it had sent, then exits", async () => {
  plugin = await PluginHarness.start({ executable: repoPath("bin/terraform-provider-mgmt"), env: { MGMT_URL: server.url, MGMT_TOKEN: server.token } });
  expect((await plugin.configureProvider({ url: null, token: null })).diagnostics).toEqual([]);
  const config: ObjectValue = { id: null, label: "sent-before-sigterm", ssh_key: sshKeyText("ed25519", "sigterm@ci"), created: null };
  const plan = await plugin.planResourceChange("mgmt_ssh_key", { priorState: null, proposedNewState: config, config });
  const fault = (await admin("POST", "/faults", { route: "/v4/profile/sshkeys", method: "POST", latency_ms: 1000 })) as { id: number };

  const applying = plugin.applyResourceChange("mgmt_ssh_key", { priorState: null, plannedState: plan.plannedState, config });
  // The create has reached the server (which holds it) when the signal comes.
  const hits = async () => ((await admin("GET", "/faults")) as { data: { id: number; hits: number }[] }).data.find((f) => f.id === fault.id)!.hits;
  while ((await hits()) === 0) await new Promise((r) => setTimeout(r, 10));
  plugin.child.kill("SIGTERM");

  const applied = await applying;
  expect(applied.diagnostics).toEqual([]);
  expect((await plugin.exited).code).toBe(0);
  const ids: string[] = [];
  for await (const k of listKeys()) if (k.label === "sent-before-sigterm") ids.push(String(k.id));
  expect(ids).toEqual([applied.newState!.id]);
});

async function* listKeys(): AsyncIterable<{ id: number; label: string }> {
  const res = await fetch(`${server.url}/profile/sshkeys?page_size=500`, { headers: { authorization: `Bearer ${server.token}` } });
  yield* ((await res.json()) as { data: { id: number; label: string }[] }).data;
}
