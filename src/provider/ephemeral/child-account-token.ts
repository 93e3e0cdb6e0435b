/**
 * mgmt_child_account_token: a child account's proxy-user token for the length of one plan or
 * apply, never in state or plan files (ephemeral resources need Terraform 1.10+). Its use is an
 * aliased provider acting inside the child account:
 *
 *   ephemeral "mgmt_child_account_token" "c" { euuid = "..." }
 *   provider "mgmt" { alias = "child"  token = ephemeral.mgmt_child_account_token.c.token }
 *
 * Close revokes the token, so nothing outlives the run. The API cannot extend a proxy token, so
 * renew only warns that it is about to run out; the provider's child_account block is the
 * answer for runs longer than its 15 minutes.
 */
import { ApiError } from "../../client/errors";
import { childAccountEuuid, type ProviderContext } from "../config";
import { string } from "../framework/attributes";
import { defineEphemeralResource, type Operation } from "../framework/resource";
import { renewalTime, revokeWithItself } from "../proxy-session";
import { toRfc3339 } from "../timestamps";

/** What renew and close need, as private data the engine holds in memory: no secret in it. */
interface Opened {
  readonly id: number;
  readonly euuid: string;
  readonly expiry: string | null;
}

const encode = (o: Opened): Uint8Array => Buffer.from(JSON.stringify(o));

function decode(priv: Uint8Array | undefined): Opened {
  const o = JSON.parse(Buffer.from(priv ?? []).toString("utf8") || "null") as Opened | null;
  if (o === null || typeof o.id !== "number") throw new Error("the engine handed back no record of the opened token");
  return o;
}

export const childAccountTokenEphemeral = defineEphemeralResource<ProviderContext>()({
  typeName: "mgmt_child_account_token",
  description:
    "A proxy-user token of a child account, for one plan or apply: never stored in state or plan, revoked when the run ends. The configured token needs OAuth scope child_account:read_write. Requires Terraform 1.10 or later (ephemeral resources).",
  attributes: {
    euuid: childAccountEuuid,
    token: string("computed", "The proxy-user token: use it as a provider's token to act inside the child account.", { sensitive: true }),
    expiry: string("computed", "When the token stops working (RFC 3339), 15 minutes after it was obtained."),
    scopes: string("computed", "The token's OAuth scopes (`*`: the proxy user's own permissions apply)."),
  },

  async open(op, config) {
    const { euuid } = config;
    const minted = await op.ctx.client.createChildAccountToken(euuid, { signal: op.signal });
    // Only the proxy user can revoke its token, so close needs the value; the engine opens and
    // closes in the same provider process.
    op.ctx.openedTokens.set(minted.id, minted.token);
    const renewAt = renewalTime(minted, op.now().getTime());
    return {
      value: { euuid, token: minted.token, expiry: minted.expiry === null ? null : toRfc3339(minted.expiry), scopes: minted.scopes },
      ...(renewAt !== undefined ? { renewAt: new Date(renewAt) } : {}),
      private: encode({ id: minted.id, euuid, expiry: minted.expiry }),
    };
  },

  async renew(op, priv) {
    const { euuid, expiry } = decode(priv);
    op.warn(
      `The proxy token of child account ${euuid} runs out at ${expiry === null ? "an unknown time" : toRfc3339(expiry)}`,
      "The API cannot extend a proxy-user token, so anything still using it after that fails. For runs longer than 15 minutes, use the provider's child_account block, which replaces its token as needed.",
    );
    return {};
  },

  async close(op, priv) {
    const { id, euuid } = decode(priv);
    await revoke(op, id, euuid);
  },
});

async function revoke(op: Operation<ProviderContext>, id: number, euuid: string): Promise<void> {
  const value = op.ctx.openedTokens.get(id);
  op.ctx.openedTokens.delete(id);
  if (value === undefined) {
    op.warn(
      `Proxy token ${id} of child account ${euuid} was not revoked`,
      "This provider process did not open it, so it does not hold the value it takes to revoke it; it expires on its own within 15 minutes.",
    );
    return;
  }
  try {
    await revokeWithItself(op.ctx.clientWith, value, id);
  } catch (err) {
    // Expired or revoked already: nothing left to end.
    if (!(err instanceof ApiError && (err.status === 401 || err.status === 404))) throw err;
  }
}
