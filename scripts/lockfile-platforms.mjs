#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages that this
// machine's npm registry does not carry (e.g. @swc/core and unrs-resolver builds for macOS or
// Windows). npm leaves them out of the lock when it cannot fetch their manifests, and `npm ci`
// then calls the lock out of sync. Each entry gets the os/cpu/libc its name states, so npm
// skips it on every other platform without fetching it. Run after `npm install`.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages;

const OS = {
  darwin: "darwin",
  linux: "linux",
  win32: "win32",
  freebsd: "freebsd",
  android: "android",
  openharmony: "openharmony",
  sunos: "sunos",
  netbsd: "netbsd",
  openbsd: "openbsd",
  aix: "aix",
};
const CPU = {
  x64: "x64",
  arm64: "arm64",
  arm: "arm",
  ia32: "ia32",
  ppc64: "ppc64",
  s390x: "s390x",
  riscv64: "riscv64",
  loong64: "loong64",
  mips64el: "mips64el",
  wasm32: "wasm32",
};

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => p in OS);
  const cpu = parts.find((p) => p in CPU);
  if (!os || !cpu) return undefined;
  const libc = parts.includes("musl") || parts.includes("musleabihf") ? "musl" : parts.includes("gnu") || parts.includes("gnueabihf") ? "glibc" : undefined;
  return { os: [OS[os]], cpu: [CPU[cpu]], ...(libc && os === "linux" ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const parent = path === "" ? "" : `${path}/`;
    if (packages[`${parent}node_modules/${dep}`] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[`node_modules/${dep}`] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stderr.write(`lockfile-platforms: added ${added} platform entries\n`);
