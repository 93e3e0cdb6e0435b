/**
 * The package.json inside an npm tarball (`npm pack` output: gzip over tar, files under
 * `package/`), read without unpacking: `mgmt init` names each dependency by the package's own
 * name and version rather than by guessing them from the file name.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
}

const BLOCK = 512;

/** Each regular file's path and bytes, in the order stored (ustar; the long-name records npm writes are skipped). */
function* entries(tar: Buffer): Generator<{ path: string; data: Buffer }> {
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return;
    const field = (from: number, length: number) => header.toString("utf8", from, from + length).replace(/\0.*$/s, "");
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const name = field(0, 100);
    const start = at + BLOCK;
    if (type === "0" || type === "") yield { path: prefix ? `${prefix}/${name}` : name, data: tar.subarray(start, start + size) };
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
}

export function readManifest(tgzPath: string): PackageManifest {
  let tar: Buffer;
  try {
    tar = gunzipSync(readFileSync(tgzPath));
  } catch (err) {
    throw new Error(`${tgzPath} is not a gzip-compressed npm package: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  for (const { path, data } of entries(tar)) {
    if (path.replace(/^[^/]+\//, "") !== "package.json" || path.split("/").length !== 2) continue;
    const manifest = JSON.parse(data.toString("utf8")) as Partial<PackageManifest>;
    if (typeof manifest.name !== "string" || typeof manifest.version !== "string") throw new Error(`${tgzPath}: package.json has no name or version`);
    return { name: manifest.name, version: manifest.version };
  }
  throw new Error(`${tgzPath} holds no package.json`);
}
