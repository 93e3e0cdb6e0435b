/** @tier cli */
/**
 * bin/terraform-provider-mgmt, the shell launcher the engines run (the provider package's is
 * the same script): it finds the bundle through a symlink, and it takes NODE_EXTRA_CA_CERTS
 * away from node (which would parse it at every start) and hands it to the provider, which
 * must then trust it for an HTTPS API exactly as node would have. It starts node without V8
 * flags, which would make V8 reject node's own compiled modules; Liftoff only for WebAssembly,
 * which keeps a large plan's peak RSS down, is set when undici loads (src/plugin/compile-cache.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { type Server, createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { startServe, type RunningServer } from "../../src/harness/serve";
import { createSelfSignedCertificate } from "../../src/plugin/tls";
import { HANDED_OVER_ENV } from "../../src/provider/extra-ca";
import { emptyProviderConfig } from "../support/provider-config";
import { PluginHarness } from "../../testkit/plugin-harness";

const LAUNCHER = repoPath("bin/terraform-provider-mgmt");

const EMPTY_PROVIDER_CONFIG = emptyProviderConfig();

/** The environment node was exec'd with, as Linux shows it. */
function environOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

/** An HTTPS front for the local API, with a certificate no bundled root signed. */
async function httpsFront(target: string, cert: { certPem: string; keyPem: string }): Promise<{ server: Server; url: string }> {
  const upstream = new URL(target);
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `https://localhost:${(server.address() as AddressInfo).port}${upstream.pathname}` };
}

describe("the plugin's launcher", () => {
  let dir: string;
  let api: RunningServer;
  let front: { server: Server; url: string };
  let caFile: string;
  const plugins: PluginHarness[] = [];

  const start = async (env: Record<string, string | undefined>, executable = LAUNCHER) => {
    const plugin = await PluginHarness.start({ executable, env: { NODE_EXTRA_CA_CERTS: undefined, ...env } });
    plugins.push(plugin);
    return plugin;
  };
  // Configure checks the token with one request, so an untrusted certificate fails it there.
  const configure = (plugin: PluginHarness) => plugin.configureProvider({ url: front.url, token: api.token });
  const untrusted = [
    expect.objectContaining({ severity: "error", summary: "Cannot reach the Management API", detail: expect.stringMatching(/SELF_SIGNED_CERT/) }),
  ];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mgmt-launcher-"));
    const cert = createSelfSignedCertificate();
    caFile = join(dir, "extra-ca.pem");
    writeFileSync(caFile, cert.certPem);
    api = await startServe();
    front = await httpsFront(api.url, cert);
  });
  afterAll(async () => {
    await Promise.all(plugins.map((p) => p.kill()));
    front?.server.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts through a symlink, as from node_modules/.bin", async () => {
    const link = join(dir, "terraform-provider-mgmt");
    symlinkSync(LAUNCHER, link);
    const plugin = await start({}, link);
    expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
  });

  it("runs node without V8 flags, and sets Liftoff only as undici loads, with every start's code caches still in use", async () => {
    const cacheDir = join(dir, "cache");
    mkdirSync(cacheDir, { mode: 0o700 });
    const trace = join(dir, "trace.jsonl");
    /** One start, configuring or not; which bundles it compiled from their caches, and its command line. */
    const oneStart = async (configuring: boolean) => {
      rmSync(trace, { force: true });
      // Each start loads the plugin itself, as one that finds no shared host does.
      const plugin = await start({ MGMT_PLUGIN_CACHE_DIR: cacheDir, MGMT_PLUGIN_TRACE: trace, MGMT_PLUGIN_SHARED: "off" });
      // exec: the launcher's process is node's, so its command line is node's.
      const argv = readFileSync(`/proc/${plugin.child.pid}/cmdline`, "utf8").split("\0");
      expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
      expect((await plugin.validateProviderConfig(EMPTY_PROVIDER_CONFIG)).diagnostics).toEqual([]);
      if (configuring) expect((await plugin.configureProvider({ url: api.url, token: api.token })).diagnostics).toEqual([]);
      await plugin.shutdown();
      const marks = readFileSync(trace, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { event: string; used?: string[] | boolean });
      const used = marks.find((m) => m.event === "compile cache")!.used as string[];
      return {
        argv: argv.slice(1, -1).map((a) => (a.endsWith("/dist/plugin.js") ? "dist/plugin.js" : a)),
        entry: marks.find((m) => m.event === "entry code cache")!.used,
        used: [...used].sort(),
      };
    };
    // The first start writes its caches, the flag set on the way: a start that only validates must still take them.
    expect(await oneStart(true)).toEqual({ argv: ["dist/plugin.js"], entry: false, used: [] });
    expect(await oneStart(false)).toMatchObject({ entry: true, used: ["calls.js", "provider.js", "services.js"] });
    expect(await oneStart(true)).toMatchObject({ entry: true, used: ["calls.js", "provider.js", "services.js", "undici.js", "zod.js"] });

    // undici's cache was made under --liftoff-only: V8 takes it under that flag and no other.
    const undiciCache = readdirSync(cacheDir).find((f) => f.startsWith("undici.js-"))!;
    const accepts = (flags: string[]) =>
      execFileSync(
        process.execPath,
        [
          ...flags,
          "-e",
          `const fs = require("fs");
           const source = require("module").wrap(fs.readFileSync(process.argv[1], "utf8"));
           const script = new (require("vm").Script)(source, { filename: process.argv[1], cachedData: fs.readFileSync(process.argv[2]) });
           process.stdout.write(String(!script.cachedDataRejected));`,
          repoPath("dist/undici.js"),
          join(cacheDir, undiciCache),
        ],
        { encoding: "utf8" },
      );
    expect([accepts(["--liftoff-only"]), accepts([])]).toEqual(["true", "false"]);
  });

  it("loads every one of node's modules a configuring start needs before it sets Liftoff only, where node's compiled code is still taken", async () => {
    const afterFlag = join(dir, "after-flag.txt");
    // Preloaded by node itself (NODE_OPTIONS is not a V8 flag): the modules node loaded after the first flag was set.
    const preload = join(dir, "after-flag.js");
    writeFileSync(
      preload,
      `const v8 = require("node:v8");
       const set = v8.setFlagsFromString;
       let at;
       v8.setFlagsFromString = function (flags) { at ??= process.moduleLoadList.length; return set.call(this, flags); };
       process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(afterFlag)}, at === undefined ? "no flag set" : process.moduleLoadList.slice(at).join("\\n")));`,
    );
    const plugin = await start({ NODE_OPTIONS: `--require=${preload}` });
    expect((await plugin.getProviderSchema()).diagnostics).toEqual([]);
    expect((await plugin.validateProviderConfig(EMPTY_PROVIDER_CONFIG)).diagnostics).toEqual([]);
    expect((await plugin.configureProvider({ url: api.url, token: api.token })).diagnostics).toEqual([]);
    expect(await plugin.shutdown()).toBe(0);
    const loaded = readFileSync(afterFlag, "utf8");
    expect(loaded).not.toBe("no flag set");
    expect(loaded.split("\n").filter((m) => m.startsWith("NativeModule "))).toEqual([]);
  });

  it("starts node without NODE_EXTRA_CA_CERTS and hands the file to the provider", async () => {
    const plugin = await start({ NODE_EXTRA_CA_CERTS: caFile });
    const environ = environOf(plugin.child.pid!);
    expect(environ.has("NODE_EXTRA_CA_CERTS")).toBe(false);
    expect(environ.get(HANDED_OVER_ENV)).toBe(caFile);
  });

  it("trusts the handed-over certificates for an HTTPS API, as node would", async () => {
    const plugin = await start({ NODE_EXTRA_CA_CERTS: caFile });
    expect((await configure(plugin)).diagnostics).toEqual([]);
    const { state, diagnostics } = await plugin.readDataSource("mgmt_profile", {});
    expect(diagnostics).toEqual([]);
    expect(state).toMatchObject({ username: "admin" });
  });

  it("refuses the same API without them", async () => {
    expect((await configure(await start({}))).diagnostics).toEqual(untrusted);
  });

  it("skips a CA file it cannot read, with a warning, as node does", async () => {
    const missing = join(dir, "missing.pem");
    const plugin = await start({ NODE_EXTRA_CA_CERTS: missing });
    expect((await configure(plugin)).diagnostics).toEqual(untrusted);
    expect(plugin.stderr).toContain(`Ignoring extra certs from ${missing}`);
  });
});
