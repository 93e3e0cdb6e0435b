/**
 * The durability tests' server and load. `spawnServe` starts the bundled CLI's `mgmt serve` as a
 * child and waits for its ready line. `writeUntilKilled` is the load: 16 writers POST SSH keys to a `mgmt serve` child until it is
 * killed with SIGKILL, the moment the `killAt`-th answer arrives, others still in flight. What it
 * resolves with is every key the server acknowledged (id to label): each must be in the store after.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { request } from "undici";
import { ed25519Key } from "./sshkey-gen";

const root = join(__dirname, "..", "..");

export interface ServeChild {
  child: ChildProcess;
  url: string;
  token: string;
  /** Settles when the child exits (for a killed one, once it is gone). */
  exited: Promise<unknown>;
}

/**
 * Runs `mgmt serve --port 0 <args>` from `bundle` (see cli-bundle.ts) with a fresh token and the
 * repository's node_modules, resolving with the URL and token from its ready line.
 */
export async function spawnServe(bundle: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeChild> {
  const child = spawn(process.execPath, [bundle, "serve", "--port", "0", ...args], {
    env: { ...process.env, MGMT_SERVE_TOKEN: "", NODE_PATH: join(root, "node_modules"), ...env },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const ready = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string; token: string });
    });
    void exited.then(() => reject(new Error("mgmt serve exited before it was ready")));
  });
  return { child, exited, ...ready };
}

export async function writeUntilKilled(child: ChildProcess, url: string, token: string, killAt: number): Promise<Map<number, string>> {
  const acknowledged = new Map<number, string>();
  const writer = async (w: number) => {
    for (let i = 0; !child.killed; i++) {
      const label = `w${w}-${i}`;
      try {
        const res = await request(`${url}/profile/sshkeys`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ label, ssh_key: ed25519Key() }),
        });
        const body = (await res.body.json()) as { id: number };
        if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}`);
        acknowledged.set(body.id, label);
        if (acknowledged.size === killAt) child.kill("SIGKILL");
      } catch (err) {
        // Requests in flight when the server was killed fail; that is the point.
        if (!child.killed) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
  return acknowledged;
}
