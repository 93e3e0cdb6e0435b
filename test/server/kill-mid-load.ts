/**
 * Load for the durability tests: 16 writers POST SSH keys to a `mgmt serve` child until it is
 * killed with SIGKILL, the moment the `killAt`-th answer arrives, others still in flight. What it
 * resolves with is every key the server acknowledged (id to label): each must be in the store after.
 */
import type { ChildProcess } from "node:child_process";
import { request } from "undici";
import { ed25519Key } from "./sshkey-gen";

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
