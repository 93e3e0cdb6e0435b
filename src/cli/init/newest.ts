/**
 * Which of several tarballs of one package `mgmt init` takes: the highest version, compared as
 * semver does (by name, 0.10.0 would sort before 0.9.0), a release above its pre-releases.
 */
const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** A pre-release identifier against another: numbers as numbers and below words, words by character code. */
function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Number(a) - Number(b);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative, zero or positive as `a` is below, equal to or above `b`; both must be semver versions. */
export function compareVersions(a: string, b: string): number {
  const [, ...pa] = SEMVER.exec(a) ?? [];
  const [, ...pb] = SEMVER.exec(b) ?? [];
  if (pa.length === 0 || pb.length === 0) throw new Error(`not a version: ${pa.length === 0 ? a : b}`);
  for (let i = 0; i < 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  const [preA, preB] = [pa[3], pb[3]];
  if (preA === undefined || preB === undefined) return (preA === undefined ? 1 : 0) - (preB === undefined ? 1 : 0);
  const ia = preA.split(".");
  const ib = preB.split(".");
  for (let i = 0; i < Math.min(ia.length, ib.length); i++) {
    const d = compareIdentifiers(ia[i]!, ib[i]!);
    if (d !== 0) return d;
  }
  return ia.length - ib.length;
}

/** The version in `file` when it is `<stem>-<version>.tgz` (npm pack's name for the package), else undefined. */
export function tarballVersion(file: string, stem: string): string | undefined {
  if (!file.startsWith(`${stem}-`) || !file.endsWith(".tgz")) return undefined;
  const version = file.slice(stem.length + 1, -".tgz".length);
  return SEMVER.test(version) ? version : undefined;
}

/** The file of the highest version among `files` named `<stem>-<version>.tgz`; undefined when there is none. */
export function newestTarball(files: readonly string[], stem: string): string | undefined {
  let best: { file: string; version: string } | undefined;
  for (const file of files) {
    const version = tarballVersion(file, stem);
    if (version !== undefined && (best === undefined || compareVersions(version, best.version) > 0)) best = { file, version };
  }
  return best?.file;
}
