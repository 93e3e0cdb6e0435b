/**
 * mgmt_token: a personal access token. Its value is shown once, by create; it is kept in state
 * (sensitive) and never replaced by the 16-character prefix reads return. A token that expired
 * or was revoked is gone: the next plan creates a new one. `renew_before` makes a scheduled
 * apply rotate it before it expires: an in-place update that creates the new token, then revokes
 * the old, so a valid token is in state at every moment (`rotation.ts`).
 */
import type { PersonalAccessToken } from "../../../contract";
import { TOKEN_LABEL, oauthScopesText, secretInName, tokenLabel } from "../../../contract/field-rules";
import { SCOPE_AREAS, sameScopes } from "../../../contract/scopes";
import type { ProviderContext } from "../../config";
import { string } from "../../framework/attributes";
import { attr, error, type Diagnostic } from "../../framework/diagnostics";
import { defineResource, type ResourceOperation } from "../../framework/resource";
import { Unknown, known } from "../../framework/value";
import type { AppliedConfigOf, PlannedOf, StateOf } from "../../framework/value-types";
import { formatTimestamp, parseDuration, parseRfc3339 } from "../../../contract/timestamps";
import { positiveDuration, rfc3339, sameInstant, toRfc3339 } from "../../timestamps";
import { closestArea, unknownScopeAreas } from "../../scope-areas";
import { orNullIfGone } from "../../../client/errors";
import { expiryProblems, lifetimeProblems, refuseActingToken } from "./lifetime";
import { parseId, stateId } from "../ids";
import { createTokenOnce, tokenCollection, tokenTwins } from "./collection";
import { ROTATED, rotationReason, revokeAfterRotation } from "./rotation";

const attributes = {
  id: string("computed", "The token's id.", { keepPrior: true }),
  label: string("required", `A name for the token, ${TOKEN_LABEL.min} to ${TOKEN_LABEL.max} characters. Changed in place.`, {
    secret: secretInName,
    validate: tokenLabel,
  }),
  scopes: string(
    "optional_computed",
    "OAuth scopes: `*` or space-separated `<area>:read_only` / `<area>:read_write` items. Omitted: the scopes of the provider's own token. Order, repetition and a `read_only` implied by `read_write` on the same area are not changes.",
    { keepPrior: true, requiresReplace: true, semanticEquals: sameScopes, validate: oauthScopesText },
  ),
  expiry: string(
    "optional_computed",
    "When the token stops working, RFC 3339 in any offset (compared as an instant). Omitted with `expires_in` also omitted: the token does not expire.",
    { keepPrior: true, requiresReplace: true, semanticEquals: sameInstant, validate: rfc3339, conflictsWith: ["expires_in"] },
  ),
  expires_in: string("optional", 'Lifetime from creation, as a duration such as "2160h"; `expiry` is computed at create.', {
    requiresReplace: true,
    validate: positiveDuration,
    conflictsWith: ["expiry"],
  }),
  renew_before: string(
    "optional",
    'Needs `expires_in`. When the token expires within this duration (e.g. "720h"), the plan rotates it in place: the apply creates the new token, records it, then revokes the old one, so a scheduled apply renews it before it expires and nothing that uses it sees a gap.',
    { validate: positiveDuration },
  ),
  token: string("computed", "The token value, known only from creation.", { sensitive: true, keepPrior: true }),
  created: string("computed", "When the token was created (RFC 3339, UTC).", { keepPrior: true }),
};

type State = StateOf<typeof attributes>;

/** State from an API answer; what the API cannot tell (the value, the lifetime settings) comes from `kept`. */
function toState(t: PersonalAccessToken, kept: Pick<State, "expires_in" | "renew_before" | "token"> | null): State {
  return {
    id: String(t.id),
    label: t.label,
    scopes: t.scopes,
    expiry: t.expiry === null ? null : toRfc3339(t.expiry),
    expires_in: kept?.expires_in ?? null,
    renew_before: kept?.renew_before ?? null,
    token: kept?.token ?? null,
    created: toRfc3339(t.created),
  };
}

/** Whether a token expiring at `expiry` is inside its renewal window at `now`. */
export function dueForRenewal(expiry: string, renewBefore: string, now: Date): boolean {
  const at = parseRfc3339(expiry);
  const window = parseDuration(renewBefore);
  return at !== undefined && window !== undefined && at - now.getTime() <= window;
}

/** Creates the token `planned` describes: a new one, or the next of a rotation. */
async function createToken(
  { ctx, now }: ResourceOperation<ProviderContext>,
  planned: PlannedOf<typeof attributes>,
  config: AppliedConfigOf<typeof attributes>,
): Promise<State> {
  const expiresIn = config.expires_in ?? undefined;
  const expiry = known(planned.expiry);
  const at = expiresIn !== undefined ? now().getTime() + parseDuration(expiresIn)! : expiry !== undefined ? parseRfc3339(expiry) : undefined;
  const created = await createTokenOnce(ctx.client, {
    label: planned.label,
    ...(known(planned.scopes) !== undefined ? { scopes: known(planned.scopes) } : {}),
    ...(at !== undefined ? { expiry: formatTimestamp(at) } : {}),
  });
  return toState(created, { expires_in: planned.expires_in, renew_before: planned.renew_before, token: created.token });
}

export const tokenResource = defineResource<ProviderContext>()({
  typeName: "mgmt_token",
  description:
    "A personal access token of the user the provider acts as. The token value is known only from creation: it is stored in state (sensitive) and is not available after an import. A token that expires or is revoked outside Terraform is re-created by the next apply.",
  importId: { description: "the token's numeric id (the token value cannot be imported and stays null)", example: "12345" },
  attributes,

  validate(config) {
    const diagnostics: Diagnostic[] = [];
    if ((config.renew_before ?? null) !== null && config.expires_in === null) {
      diagnostics.push(
        error(
          "Invalid renew_before",
          "renew_before needs expires_in: a renewed token gets a new expiry only when its lifetime is relative.",
          attr("renew_before"),
        ),
      );
    }
    for (const p of lifetimeProblems(known(config.expires_in) ?? undefined, known(config.renew_before) ?? undefined))
      diagnostics.push(error(p.summary, p.detail, attr(p.attribute)));
    return diagnostics;
  },

  modifyPlan(draft) {
    const { prior, config, planned } = draft;
    const scopes = known(config.scopes);
    for (const area of scopes === undefined ? [] : unknownScopeAreas(scopes)) {
      draft.warn(
        `Unknown scope area "${area}"`,
        `The API names the scope areas ${SCOPE_AREAS.join(", ")}; "${area}" is none of them (did you mean "${closestArea(area)}"?). The API accepts it, but it grants nothing.`,
        attr("scopes"),
      );
    }
    // Only for a token this plan creates (or replaces for a new lifetime): one that exists keeps the expiry it was given.
    const configExpiry = known(config.expiry) ?? null;
    const newLifetime =
      prior === null ||
      (configExpiry !== null && (prior.expiry === null || !sameInstant(configExpiry, prior.expiry))) ||
      (known(config.expires_in) ?? null) !== prior.expires_in;
    if (newLifetime) {
      for (const p of expiryProblems(known(config.expiry) ?? undefined, known(config.expires_in) ?? undefined, draft.now))
        draft.error(p.summary, p.detail, attr(p.attribute));
    }
    const expiry = known(prior?.expiry);
    const renewBefore = known(config.renew_before);
    if (expiry === undefined || renewBefore === undefined || known(config.expires_in) === undefined) return;
    if (dueForRenewal(expiry, renewBefore, draft.now)) {
      // An update, not a replacement: the engines' replace destroys first (no gap-free
      // create_before_destroy can be asked for by a provider), and the old value would stop
      // working before the new one is written anywhere.
      for (const computed of ROTATED) planned[computed] = Unknown;
      draft.warn(rotationReason(expiry, renewBefore), "The apply creates the new token, records it, then revokes the old one.");
    }
  },

  create: createToken,

  async read({ ctx }, state) {
    const live = await ctx.reads.of(tokenCollection).read(String(parseId(stateId(state))));
    return live === null ? null : toState(live, state);
  },

  async update(op, prior, planned, config) {
    const { ctx } = op;
    // A rotation planned its id unknown (modifyPlan): a new token replaces this one in place.
    if (known(planned.id) === undefined) {
      const fresh = await createToken(op, planned, config);
      await revokeAfterRotation(fresh, () => ctx.client.revokeToken(parseId(stateId(prior)), { signal: null }), prior.id);
      return fresh;
    }
    const id = parseId(stateId(prior));
    const label = planned.label;
    const live = label === prior.label ? await ctx.client.getToken(id) : await ctx.client.updateToken(id, { label });
    return toState(live, { expires_in: planned.expires_in, renew_before: planned.renew_before, token: prior.token });
  },

  async delete({ ctx }, state) {
    await refuseActingToken(ctx, parseId(stateId(state)));
    await orNullIfGone(() => ctx.client.revokeToken(parseId(stateId(state))));
  },

  async importState({ ctx }, id) {
    return orNullIfGone(async () => toState(await tokenCollection.get(ctx.client, String(parseId(id))), null));
  },

  async twins({ ctx, now }, planned) {
    const label = known(planned.label);
    const tokens = label === undefined ? null : await ctx.reads.of(tokenCollection).all();
    return tokens ? tokenTwins(tokens, { label: label!, scopes: known(planned.scopes) }, now(), ctx.actingTokenPrefix) : [];
  },
});
