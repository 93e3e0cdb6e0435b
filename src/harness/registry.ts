/**
 * A real npm registry for the tests: Verdaccio (a devDependency) on loopback, storing in a folder of the
 * test's, with no uplink. It serves the @mgmt scope only, which anyone may publish to (a token is still sent:
 * npm refuses to publish without one), so a project's .npmrc names it for that scope and takes every
 * other package from the registry (or cache) it always uses.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { runProcess } from "./process";
import { repoPath } from "./paths";

export interface Registry {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  /** The .npmrc lines of a project that takes the @mgmt scope from this registry. */
  readonly npmrc: string;
  publish(tarball: string): Promise<void>;
  stop(): Promise<void>;
}

const CONFIG = `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: -1
web:
  enable: false
packages:
  "@mgmt/*":
    access: $all
    publish: $anonymous
    unpublish: $anonymous
log: { type: stdout, format: json, level: error }
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function answers(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`verdaccio did not answer at ${url}:\n${output()}`);
}

/** Starts Verdaccio with its storage in `dir`. */
export async function startRegistry(dir: string): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.yaml"), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(
    process.execPath,
    [repoPath("node_modules", "verdaccio", "bin", "verdaccio"), "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const stopped = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await answers(url, child, () => output);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  const auth = `//127.0.0.1:${port}/:_authToken=anonymous`;
  return {
    url,
    npmrc: `@mgmt:registry=${url}\n${auth}\n`,
    async publish(tarball) {
      const r = await runProcess("npm", ["publish", tarball, "--registry", url, `--${auth}`, "--ignore-scripts"], {
        cwd: dir,
        env: { ...process.env, npm_config_workspaces: "", npm_config_update_notifier: "false" },
      });
      if (r.code !== 0) throw new Error(`npm publish ${tarball} failed:\n${r.stdout}\n${r.stderr}`);
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await stopped;
    },
  };
}
