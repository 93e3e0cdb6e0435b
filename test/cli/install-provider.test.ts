/** @tier engine */
/** `mgmt install-provider` puts the package where both engines find it with no CLI configuration, or prints how to point them elsewhere. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, runEngine } from "../../src/harness/engine";
import { repoPath } from "../../src/harness/paths";
import { PROVIDER_SOURCE, PROVIDER_VERSION } from "../../src/provider/identity";

jest.setTimeout(120_000);

const home = mkdtempSync(join(tmpdir(), "mgmt-home-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const { TF_CLI_CONFIG_FILE: _ignored, ...cleanEnv } = process.env;
const env = { ...cleanEnv, HOME: home, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1" };
const mgmt = (args: string[]) => spawnSync(process.execPath, [repoPath("dist/cli.js"), ...args], { encoding: "utf8", env });

describe("mgmt install-provider", () => {
  it("installs into ~/.terraform.d/plugins, which every engine here searches by itself", async () => {
    const r = mgmt(["install-provider"]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(r.stdout).toContain(join(home, ".terraform.d", "plugins"));
    expect(r.stdout).not.toContain("provider_installation");
    for (const engine of availableEngines()) {
      const project = mkdtempSync(join(home, `project-${engine.name}-`));
      writeFileSync(
        join(project, "main.tf.json"),
        JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE, version: PROVIDER_VERSION } } } }),
      );
      const init = await runEngine(engine, ["init", "-no-color"], project, env);
      expect({ engine: engine.name, code: init.code, stderr: init.stderr }).toEqual({ engine: engine.name, code: 0, stderr: "" });
    }
  });

  it("installs into another directory and prints the block that points the engines at it", () => {
    const dir = join(home, "elsewhere");
    const r = mgmt(["install-provider", "--dir", dir]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`path    = "${dir}"`);
    expect(existsSync(join(dir, PROVIDER_SOURCE, PROVIDER_VERSION))).toBe(true);
    expect(mgmt(["install-provider", "--nope"]).status).toBe(2);
  });

  it("prints the mirror it carries, the one every platform's package is in, and copies nothing", () => {
    const r = mgmt(["install-provider", "--print-mirror"]);
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: `${repoPath("dist", "mirror")}\n`, stderr: "" });
    expect(readdirSync(join(repoPath("dist", "mirror"), PROVIDER_SOURCE, PROVIDER_VERSION)).sort()).toEqual([
      "darwin_amd64",
      "darwin_arm64",
      "linux_amd64",
      "linux_arm64",
    ]);
    const both = mgmt(["install-provider", "--print-mirror", "--dir", join(home, "x")]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("'--dir' and '--print-mirror'");
    expect(existsSync(join(home, "x"))).toBe(false);
  });

  it("refuses on Windows, saying why, and installs nothing", () => {
    // The CLI as node would run it on Windows: process.platform is all the command looks at.
    const preload = join(home, "as-windows.js");
    writeFileSync(preload, `Object.defineProperty(process, "platform", { value: "win32" });\n`);
    const dir = join(home, "windows");
    const r = spawnSync(process.execPath, ["--require", preload, repoPath("dist/cli.js"), "install-provider", "--dir", dir], { encoding: "utf8", env });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("POSIX sh");
    expect(r.stderr).toContain("WSL");
    expect(existsSync(dir)).toBe(false);
    expect(mgmt(["install-provider", "--help"]).stdout).toContain("none for Windows");
  });
});
