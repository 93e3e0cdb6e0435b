/** The provider's published releases: what CHANGELOG.md lists, and what the upgrade tests build (./release-build.ts). */

export interface Release {
  readonly version: string;
  /** The commit on main the release was cut from. */
  readonly commit: string;
  readonly date: string;
}

/** Every release, oldest first. CHANGELOG.md names the same versions, dates and commits (test/docs/changelog.test.ts). */
export const RELEASES: readonly Release[] = [{ version: "0.1.0", commit: "871308bea8e6d3cdb1729e7a933c635a838213f6", date: "2026-11-27" }];

/** The newest release: the one upgrades are tested from live. */
export const latestRelease = (): Release => RELEASES[RELEASES.length - 1]!;
