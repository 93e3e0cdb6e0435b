/**
 * better-sqlite3 (a dependency of @mgmt/provider) installs by running prebuild-install, which
 * downloads the addon built for this node from the project's GitHub releases, and compiles it
 * when it cannot: minutes on two cores, which is what happens on machines that reach only the
 * npm registry, as these tests' do. Tests that npm-install the packages into a project hand
 * prebuild-install that same prebuilt file through its own `local-prebuilds` setting (in the
 * `.prebuild-installrc` of the HOME they run with), made from the addon this checkout's `npm ci`
 * built: same version, same node ABI. The package's install script still runs; an installed
 * version other than this checkout's finds no file and downloads or compiles, as on any machine.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Points prebuild-install, for programs run with this HOME, at the prebuilt addon (made once per machine and version). */
export function usePrebuiltAddon(home: string): void {
  const pkgDir = dirname(require.resolve("better-sqlite3/package.json"));
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
  const dir = join(tmpdir(), `mgmt-addon-prebuilds-${process.versions.modules}`);
  // prebuild-install's asset name: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz (glibc: no libc part).
  const file = join(dir, `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    execFileSync("tar", ["-czf", partial, "build/Release/better_sqlite3.node"], { cwd: pkgDir });
    renameSync(partial, file);
  }
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".prebuild-installrc"), `local-prebuilds=${dir}\n`);
}
