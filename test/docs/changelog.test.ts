/** @tier unit */
/**
 * CHANGELOG.md in Keep a Changelog form, and in step with what the code says of releases: every
 * release in src/harness/releases.ts has its heading with its date and commit, newest first, and
 * the version being built (package.json, the provider's identity) heads the file.
 */
import { readFileSync } from "node:fs";
import { repoPath } from "../../src/harness/paths";
import { RELEASES } from "../../src/harness/releases";
import { PROVIDER_VERSION } from "../../src/provider/identity";

const changelog = readFileSync(repoPath("CHANGELOG.md"), "utf8");
const headings = [...changelog.matchAll(/^## \[([^\]]+)\] - (.+)$/gm)].map(([, version, when]) => ({ version: version!, when: when! }));
const SECTIONS = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"];

it("names one version for the package and the provider, and heads the changelog with it", () => {
  expect(JSON.parse(readFileSync(repoPath("package.json"), "utf8")).version).toBe(PROVIDER_VERSION);
  expect(headings[0]?.version).toBe(PROVIDER_VERSION);
});

it("gives every recorded release its heading with its date, and its commit below it, newest first", () => {
  const released = headings.filter((h) => h.when !== "Unreleased");
  expect(released.map((h) => h.version)).toEqual(RELEASES.map((r) => r.version).reverse());
  for (const r of RELEASES) {
    expect(released.find((h) => h.version === r.version)?.when).toBe(r.date);
    const body = changelog.slice(changelog.indexOf(`## [${r.version}]`)).split(/^## /m)[1]!;
    expect(body).toContain(`Commit \`${r.commit}\``);
  }
});

it("uses only Keep a Changelog's sections", () => {
  for (const [, section] of changelog.matchAll(/^### (.+)$/gm)) expect(SECTIONS).toContain(section);
});
