/** @tier cli */
/** Every `mgmt` subcommand answers --help with its usage and exit 0, and refuses an unknown flag naming it. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";

const mgmt = (args: string[], cwd = process.cwd()) =>
  spawnSync(process.execPath, [repoPath("dist/cli.js"), ...args], { cwd, encoding: "utf8", env: { ...process.env, CHECKPOINT_DISABLE: "1" } });

describe("mgmt subcommands", () => {
  it.each(["serve", "schema", "docs", "install-provider", "plan-report", "drift", "policy", "warm", "version"])(
    "%s --help and -h print usage and exit 0",
    (command) => {
      for (const flag of ["--help", "-h"]) {
        const r = mgmt([command, flag]);
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
        expect(r.stdout).toMatch(new RegExp(`usage: mgmt ${command}`));
      }
    },
  );

  it("docs --help writes nothing, docs with an unknown flag exits 2 naming it", () => {
    const cwd = mkdtempSync(join(tmpdir(), "mgmt-cli-"));
    expect(mgmt(["docs", "--help"], cwd).status).toBe(0);
    expect(existsSync(join(cwd, "--help"))).toBe(false);
    const bad = mgmt(["docs", "--bogus"], cwd);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--bogus/);
    expect(mgmt(["schema", "extra"]).status).toBe(2);
  });

  it("version prints JSON, and refuses an unknown flag or an argument naming it", () => {
    const r = mgmt(["version"]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(JSON.parse(r.stdout)).toEqual({ version: expect.any(String), provider_source: expect.stringMatching(/\/mgmt$/) });
    for (const args of [
      ["version", "--bogus"],
      ["--version", "--bogus"],
      ["version", "extra"],
    ]) {
      const bad = mgmt(args);
      expect({ status: bad.status, stdout: bad.stdout }).toEqual({ status: 2, stdout: "" });
      expect(bad.stderr).toContain(`mgmt version: ${args[1] === "extra" ? "unexpected argument 'extra'" : "Unknown option '--bogus'"}`);
      expect(bad.stderr).toContain("usage: mgmt version");
    }
  });
});
