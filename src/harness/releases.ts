/**
 * The provider's published releases, as releases.json records them: the one record of each release's version,
 * date and commit, written by `npm run release` (scripts/release.mjs). CHANGELOG.md names the same versions,
 * dates and commits (test/docs/changelog.test.ts), and the upgrade tests build each from its commit
 * (./release-build.ts).
 */
import { readFileSync } from "node:fs";
import { repoPath } from "./paths";

export interface Release {
  readonly version: string;
  /** The commit on main the release was cut from. */
  readonly commit: string;
  readonly date: string;
}

/** Every release, oldest first. */
export const RELEASES: readonly Release[] = JSON.parse(readFileSync(repoPath("releases.json"), "utf8")) as Release[];

/** The newest release: the one upgrades are tested from live. */
export const latestRelease = (): Release => RELEASES[RELEASES.length - 1]!;
