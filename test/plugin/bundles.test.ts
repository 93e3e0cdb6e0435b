/**
 * What the built plugin loads for which calls. The engines start it two or three times per
 * command, and a start that only validates never makes a request: the provider bundle
 * (dist/provider.js) loads for validation, the HTTP library (dist/undici.js, half the bytes
 * node would otherwise parse with it) only once the provider makes its API client.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { sshKeyText } from "../support/ssh-keys";
import { PluginHarness } from "./harness";

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
      env: { NODE_OPTIONS: `--require ${join(dir, "probe.js")}`, PROBE_OUT: out },
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
    writeFileSync(join(dir, "probe.js"), PROBE);
    api = await startServe();
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("validates with the provider but without the HTTP library", async () => {
    const loaded = await bundlesLoadedBy(async (plugin) => {
      expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
      expect((await plugin.validateProviderConfig({ url: api.url, token: null })).diagnostics).toEqual([]);
      const key = { id: null, label: "ops", ssh_key: sshKeyText("ed25519", "ops@bastion"), created: null };
      expect((await plugin.validateResourceConfig("mgmt_ssh_key", key)).diagnostics).toEqual([]);
    });
    expect(loaded).toEqual(expect.arrayContaining(["plugin.js", "services.js", "calls.js", "provider.js"]));
    expect(loaded).not.toContain("undici.js");
  });

  it("loads the HTTP library once the provider makes its client", async () => {
    const loaded = await bundlesLoadedBy(async (plugin) => {
      expect((await plugin.configureProvider({ url: api.url, token: api.token })).diagnostics).toEqual([]);
      expect((await plugin.readDataSource("mgmt_profile", {})).diagnostics).toEqual([]);
    });
    expect(loaded).toEqual(expect.arrayContaining(["provider.js", "undici.js"]));
  });
});
