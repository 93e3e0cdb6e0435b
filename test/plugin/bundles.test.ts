/** @tier cli */
/**
 * What the built plugin loads for which calls. The engines start it two or three times per
 * command, and a start that only validates never makes a request: the provider bundle
 * (dist/provider.js) loads for validation, the HTTP library (dist/undici.js) and zod
 * (dist/zod.js, which the client's answer schemas need) only once the provider makes its API
 * client. Together they were four fifths of the bytes node parsed for a validation.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import type { ObjectValue } from "../../src/provider/framework/value";
import { sshKeyText } from "../../testkit/ssh-keys";
import { PluginHarness } from "../../testkit/plugin-harness";

// Preloaded into the plugin's node: lists every file node compiles as a CommonJS module, at exit.
const PROBE = `
const Module = require("module");
const compile = Module.prototype._compile;
const loaded = [];
Module.prototype._compile = function (content, filename) {
  loaded.push(filename);
  return compile.call(this, content, filename);
};
process.on("exit", () => require("fs").writeFileSync(process.env.PROBE_OUT, JSON.stringify(loaded)));
`;

describe("the plugin's bundles", () => {
  let dir: string;
  let api: RunningServer;

  /** Starts the plugin, makes `calls`, shuts it down, and answers the bundles it loaded. */
  async function bundlesLoadedBy(calls: (plugin: PluginHarness) => Promise<void>): Promise<string[]> {
    const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.json`);
    const plugin = await PluginHarness.start({
      executable: repoPath("bin/terraform-provider-mgmt"),
      // A folder anyone may write to: the plugin then keeps no code cache and node's own compile sees every bundle.
      env: { NODE_OPTIONS: `--require ${join(dir, "probe.js")}`, PROBE_OUT: out, MGMT_PLUGIN_CACHE_DIR: dir },
    });
    try {
      await calls(plugin);
      expect(await plugin.shutdown()).toBe(0);
    } finally {
      await plugin.kill();
    }
    return (JSON.parse(readFileSync(out, "utf8")) as string[]).map((f) => basename(f));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mgmt-bundles-"));
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, "probe.js"), PROBE);
    api = await startServe();
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("validates with the provider but without the HTTP library or zod", async () => {
    const loaded = await bundlesLoadedBy(async (plugin) => {
      expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
      expect((await plugin.validateProviderConfig({ url: api.url, token: null })).diagnostics).toEqual([]);
      const key = { id: null, label: "ops", ssh_key: sshKeyText("ed25519", "ops@bastion"), created: null };
      expect((await plugin.validateResourceConfig("mgmt_ssh_key", key)).diagnostics).toEqual([]);
      expect((await plugin.validateDataResourceConfig("mgmt_ssh_keys", {})).diagnostics).toEqual([]);
      // Every rule the server also enforces answers here, from the contract's field rules.
      const refused = async (typeName: string, config: ObjectValue) =>
        (await plugin.validateResourceConfig(typeName, config)).diagnostics.map((d) => d.summary);
      const child = [{ euuid: "not an euuid" }];
      expect((await plugin.validateProviderConfig({ child_account: child })).diagnostics.map((d) => d.summary)).toEqual(["Invalid child_account.euuid"]);
      expect(await refused("mgmt_ssh_key", { label: "ops", ssh_key: "ssh-ed25519 nonsense" })).toEqual(["Invalid ssh_key"]);
      expect(await refused("mgmt_token", { label: "", scopes: "linodes:everything" })).toEqual(["Invalid label", "Invalid scopes"]);
      expect(await refused("mgmt_tag", { label: "ab" })).toEqual(["Invalid label"]);
      expect(await refused("mgmt_oauth_client", { label: "app", redirect_uri: "ftp://example.com/cb" })).toEqual(["Invalid redirect_uri"]);
      expect(await refused("mgmt_profile_settings", { email: "nobody", timezone: "Mars/Olympus_Mons" })).toEqual(["Invalid email", "Invalid timezone"]);
      expect(await refused("mgmt_account_contact", { country: "USA" })).toEqual(["Invalid country"]);
    });
    expect(loaded).toEqual(expect.arrayContaining(["plugin.js", "services.js", "calls.js", "provider.js"]));
    expect(loaded).not.toContain("undici.js");
    expect(loaded).not.toContain("zod.js");
  });

  it("loads the HTTP library and zod once the provider makes its client", async () => {
    const loaded = await bundlesLoadedBy(async (plugin) => {
      expect((await plugin.configureProvider({ url: api.url, token: api.token })).diagnostics).toEqual([]);
      expect((await plugin.readDataSource("mgmt_profile", {})).diagnostics).toEqual([]);
    });
    expect(loaded).toEqual(expect.arrayContaining(["provider.js", "undici.js", "zod.js"]));
  });
});
