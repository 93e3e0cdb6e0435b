/** A child account made through `mgmt serve`'s admin API, and a client acting as its proxy user that no provider run touches. */
import { MgmtClient } from "../../src/client";

export interface SeededChild {
  readonly euuid: string;
  /** A client with a token of the child's proxy user of its own (the "observer"), to look inside the child account. */
  readonly proxy: MgmtClient;
  readonly observerId: number;
}

/** `url`: the server's /v4 root; `adminToken`: the server's MGMT_ADMIN_TOKEN. */
export async function seedChildAccount(url: string, adminToken: string, company: string): Promise<SeededChild> {
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(url.replace(/\/v4$/, "/__admin") + path, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`admin POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as unknown;
  };
  const child = (await admin("/child-accounts", { company })) as { euuid: string; proxy_user: { id: number } };
  const observer = (await admin(`/users/${child.proxy_user.id}/tokens`, { label: "observer", scopes: "*" })) as { id: number; token: string };
  return { euuid: child.euuid, proxy: new MgmtClient({ url, token: observer.token }), observerId: observer.id };
}

/** The child's live tokens other than the observer's: the proxy tokens a run left behind. */
export async function liveProxyTokens(child: SeededChild): Promise<number[]> {
  const ids: number[] = [];
  for await (const t of child.proxy.listTokens()) if (t.id !== child.observerId) ids.push(t.id);
  return ids;
}
