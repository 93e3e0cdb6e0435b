/**
 * A folder under node_modules/.cache made once per checkout and shared by every test that asks (an old
 * release's build, a Node from the npm registry): made aside and renamed into place with a stamp file,
 * so one cut short is never taken for a finished one.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DONE = ".made";

/** `root`, made by `make` into an empty sibling folder unless an earlier call (of any process) made it. */
export function madeOnce(root: string, make: (into: string) => void): string {
  if (existsSync(join(root, DONE))) return root;
  const partial = `${root}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  try {
    make(partial);
    writeFileSync(join(partial, DONE), `${new Date().toISOString()}\n`);
    try {
      renameSync(partial, root);
    } catch (err) {
      // Another process made it first: theirs is as good.
      if (existsSync(join(root, DONE))) return root;
      // A folder without the stamp was not made by this function (an older cache layout): replaced.
      if (!existsSync(root)) throw err;
      rmSync(root, { recursive: true, force: true });
      renameSync(partial, root);
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return root;
}
