/**
 * The package.json inside an npm tarball (`npm pack` output: gzip over tar, files under
 * `package/`), read without unpacking: `mgmt init` names each dependency by the package's own
 * name and version rather than by guessing them from the file name. And the other way: an
 * installed package's folder packed again as such a tarball.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

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

/** The time npm pack gives every entry (1985-10-26T08:15:00Z), so the bytes follow the contents alone. */
const NPM_PACK_MTIME = 499162500;

function header(path: string, size: number, mode: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  // ustar keeps up to 100 bytes of name, and up to 155 more as a prefix split at a slash.
  let name = path;
  let prefix = "";
  if (Buffer.byteLength(name) > 100) {
    const cut = path.slice(0, 156).lastIndexOf("/");
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100) throw new Error(`${path}: too long a path for a tar entry`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  block.write(name, 0, 100, "utf8");
  block.write(octal(mode, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(NPM_PACK_MTIME, 12), 136);
  block.write("        ", 148);
  block.write("0", 156);
  block.write("ustar\x0000", 257, "latin1");
  block.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

/**
 * An npm tarball of an installed package's folder (files under `package/`, in name order, modes kept
 * as executable or not, npm pack's fixed time), leaving out the paths `skip` names (relative, with
 * `/`). `mgmt init` run from an installed @mgmt/provider vendors the package this way: the package
 * cannot carry its own tarball.
 */
export function packFolder(dir: string, skip: (path: string) => boolean): Buffer {
  const files: { path: string; full: string }[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (skip(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push({ path, full: join(dir, path) });
    }
  };
  walk("");
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const parts: Buffer[] = [];
  for (const f of files) {
    const data = readFileSync(f.full);
    const mode = statSync(f.full).mode & 0o111 ? 0o755 : 0o644;
    parts.push(header(`package/${f.path}`, data.length, mode), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts));
}
