/** @tier cli */
/**
 * The warm provider (`plugin.js --warm`, what `mgmt warm` starts) stopped by SIGTERM while an
 * engine connection is still open: what that connection configured is released before the
 * process goes. `mgmt warm` sends SIGTERM as soon as CMD ends, which can be before the warm
 * provider has seen its last engine connection close.
 */
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { liveProxyTokens, seedChildAccount } from "../support/child-account";
import { PluginHarness } from "../../testkit/plugin-harness";

const ADMIN_TOKEN = "plugin-admin-warm-release-5d1a";

describe("the warm provider stopped with a connection open", () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServe(undefined, { ...process.env, MGMT_ADMIN_TOKEN: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("revokes the child account's proxy token before it exits", async () => {
    const child = await seedChildAccount(server.url, ADMIN_TOKEN, "Warm Release");
    try {
      const plugin = await PluginHarness.start({
        executable: repoPath("bin/terraform-provider-mgmt"),
        args: ["--warm"],
        tls: false,
        env: { MGMT_URL: server.url, MGMT_TOKEN: server.token },
      });
      expect((await plugin.configureProvider({ child_account: [{ euuid: child.euuid }] })).diagnostics).toEqual([]);
      expect(await liveProxyTokens(child)).toHaveLength(1);

      plugin.child.kill("SIGTERM");
      expect(await plugin.exited).toEqual({ code: 0, signal: null });
      expect(await liveProxyTokens(child)).toEqual([]);
    } finally {
      await child.proxy.close();
    }
  });
});
