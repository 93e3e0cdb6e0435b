/** @tier cli */
/**
 * The scaffold's type check (tools/typecheck.js): tsc's build mode leaves the check out while nothing of the
 * project changed since one passed, and checks everything again after an install, since the packages' types
 * are not among the files its up-to-date test looks at. Run on the scaffold's own tsconfig.json, with this
 * repository's TypeScript, in a folder where a package's types are stood in for by a declaration file main.ts
 * imports (not a root of the project, like a package's).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tsconfigJson } from "../../src/cli/init/templates/project";
import { TYPECHECK, typecheckScript } from "../../src/cli/init/templates/typecheck";
import { repoPath } from "../../src/harness/paths";

let repo: string;
const packageTypes = () => join(repo, "node_modules", "account-sdk", "index.d.ts");

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "mgmt-typecheck-"));
  mkdirSync(join(repo, "tools"));
  writeFileSync(join(repo, TYPECHECK), typecheckScript());
  writeFileSync(join(repo, "tsconfig.json"), tsconfigJson());
  mkdirSync(join(repo, "node_modules", "account-sdk"), { recursive: true });
  for (const name of ["typescript", "@types"]) symlinkSync(repoPath("node_modules", name), join(repo, "node_modules", name));
  writeFileSync(packageTypes(), "export declare const timezone: string;\n");
  writeFileSync(join(repo, "main.ts"), 'import { timezone } from "account-sdk";\nexport const zone: string = timezone;\n');
  installed(new Date(Date.now() - 60_000));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** What npm leaves after an install: its record of what it installed, dated then. */
function installed(at: Date): void {
  const lock = join(repo, "node_modules", ".package-lock.json");
  writeFileSync(lock, "{}\n");
  utimesSync(lock, at, at);
}

const typecheck = () => {
  const r = spawnSync(process.execPath, [join(repo, TYPECHECK)], { cwd: repo, encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
};
/** main.ts edited, dated a second on: the file system's clock ticks coarser than one check takes here. */
function edit(text: string): void {
  const main = join(repo, "main.ts");
  writeFileSync(main, text);
  const later = new Date(Date.now() + 1000);
  utimesSync(main, later, later);
}
const WRONG_TYPE = /main\.ts\(2,14\): error TS2322: Type 'number' is not assignable to type 'string'\./;

describe("the scaffold's type check", () => {
  it("checks after an install what it left out while only the packages' types changed", () => {
    expect(typecheck()).toEqual({ code: 0, out: "" });
    // A package's types changed under main.ts, and no file of the project: build mode finds nothing to check.
    writeFileSync(packageTypes(), "export declare const timezone: number;\n");
    expect(typecheck()).toEqual({ code: 0, out: "" });
    // The install that changed them is newer than the last check: everything is checked.
    installed(new Date());
    const after = typecheck();
    expect(after.code).not.toBe(0);
    expect(after.out).toMatch(WRONG_TYPE);
  });

  it("fails on a type error in main.ts after a check that passed, and again until it is mended", () => {
    expect(typecheck().code).toBe(0);
    edit('import { timezone } from "account-sdk";\nexport const zone: string = timezone.length;\n');
    for (let i = 0; i < 2; i++) {
      const r = typecheck();
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(WRONG_TYPE);
    }
    edit('import { timezone } from "account-sdk";\nexport const zone: string = timezone;\n');
    expect(typecheck()).toEqual({ code: 0, out: "" });
  });

  it("checks every file once after an install, then leaves the check out again", () => {
    expect(typecheck().code).toBe(0);
    installed(new Date());
    expect(typecheck().code).toBe(0);
    // Left out now: a package's types changed without an install is not seen (what the first test shows is then caught).
    writeFileSync(packageTypes(), "export declare const timezone: number;\n");
    expect(typecheck()).toEqual({ code: 0, out: "" });
  });
});
