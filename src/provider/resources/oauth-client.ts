/**
 * mgmt_oauth_client: an OAuth client of the account. Its secret is shown by create and by a
 * reset only; it is kept in state (sensitive) and never replaced by the placeholder reads
 * return. Changing `secret_version` resets it in place. The thumbnail is uploaded as bytes and
 * compared, as bytes, with what the public thumbnail operation serves.
 */
import type { OAuthClient } from "../../contract";
import { OAUTH_CLIENT_LABEL_MAX, THUMBNAIL_MAX_BYTES, oauthClientLabel, redirectUri, sniffImage } from "../../contract/field-rules";
import { createOAuthClientOnce } from "../../client/create-once";
import type { ProviderContext } from "../config";
import { bool, number, string } from "../framework/attributes";
import { typedEqual } from "../framework/equality";
import { PartialApply, defineResource } from "../framework/resource";
import { Unknown, knownString, requireString, type ObjectValue } from "../framework/value";
import { adoptedWarning, orNullIfGone } from "./ids";

/** Base64 as `filebase64()` writes it; whitespace (line-wrapped input) is ignored. */
export function decodeThumbnail(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) return undefined;
  return Buffer.from(compact, "base64");
}

function thumbnailProblem(text: string): string | undefined {
  const bytes = decodeThumbnail(text);
  if (bytes === undefined) return "must be base64-encoded image bytes, as filebase64() gives them";
  if (bytes.length > THUMBNAIL_MAX_BYTES) return `must be at most ${THUMBNAIL_MAX_BYTES} bytes of image; got ${bytes.length}`;
  if (sniffImage(bytes) === null) return "must be a PNG, JPEG or GIF image";
  return undefined;
}

const sameImage = (a: string, b: string): boolean => {
  const x = decodeThumbnail(a);
  const y = decodeThumbnail(b);
  return x !== undefined && y !== undefined && x.equals(y);
};

function toState(c: OAuthClient, kept: ObjectValue | null, thumbnail: string | null): ObjectValue {
  return {
    id: c.id,
    label: c.label,
    redirect_uri: c.redirect_uri,
    public: c.public,
    secret: kept?.secret ?? null,
    secret_version: kept?.secret_version ?? null,
    status: c.status,
    thumbnail,
    thumbnail_url: c.thumbnail_url,
  };
}

async function upload(ctx: ProviderContext, id: string, thumbnail: string): Promise<void> {
  const data = decodeThumbnail(thumbnail)!;
  await ctx.client.setOAuthClientThumbnail(id, { contentType: sniffImage(data)!, data });
}

/**
 * The live thumbnail as state holds it: only when the configuration manages one (the API has
 * no delete, so an unmanaged thumbnail is left alone), in the state's text when the bytes match.
 */
async function liveThumbnail(ctx: ProviderContext, id: string, managed: string | null): Promise<string | null> {
  if (managed === null) return null;
  const live = await orNullIfGone(() => ctx.client.getOAuthClientThumbnail(id));
  if (live === null) return null;
  const known = decodeThumbnail(managed);
  return known !== undefined && known.equals(live.data) ? managed : live.data.toString("base64");
}

export const oauthClientResource = defineResource<ProviderContext>({
  typeName: "mgmt_oauth_client",
  description:
    "An OAuth client of the account, for apps that act for the account's users. The secret is known only from creation or a reset (change `secret_version`); it is stored in state (sensitive) and is not available after an import. Deleting the client revokes every token it issued.",
  importId: { description: "the client id (the secret cannot be imported and stays null)", example: "2737bf16b39ab5d7b4a1" },
  attributes: {
    id: string("computed", "The client id.", { keepPrior: true }),
    label: string("required", `A name for the client, 1 to ${OAUTH_CLIENT_LABEL_MAX} characters, shown to users authorizing it. Changed in place.`, {
      validate: oauthClientLabel,
    }),
    redirect_uri: string("required", "Where users are sent after authorizing: an absolute http or https URL. Changed in place.", {
      validate: redirectUri,
    }),
    public: bool("optional_computed", "Whether the client is public (cannot keep a secret, such as a single-page app). Changed in place.", { default: false }),
    secret: string("computed", "The client secret, known from creation and from each reset.", { sensitive: true, keepPrior: true }),
    secret_version: number(
      "optional",
      "Any number; changing it resets the secret in place (the new one is known after apply). The usual way to rotate: increment it.",
    ),
    status: string("computed", "active, disabled or suspended.", { keepPrior: true }),
    thumbnail: string(
      "optional",
      `The client's thumbnail: PNG, JPEG or GIF bytes, base64-encoded as filebase64() gives them, at most ${THUMBNAIL_MAX_BYTES} bytes. The API cannot delete a thumbnail, so removing this attribute only stops managing it.`,
      { semanticEquals: sameImage, validate: thumbnailProblem },
    ),
    thumbnail_url: string("computed", "Where the thumbnail is served publicly; null without one.", { keepPrior: true }),
  },

  modifyPlan({ prior, planned }) {
    if (prior === null) return;
    if (!typedEqual("number", prior.secret_version ?? null, planned.secret_version ?? null)) planned.secret = Unknown;
    const thumbnail = planned.thumbnail ?? null;
    if (thumbnail !== null && prior.thumbnail !== thumbnail) planned.thumbnail_url = Unknown;
  },

  async create({ ctx, warn }, planned) {
    ctx.reads.oauthClients.invalidate();
    const created = await createOAuthClientOnce(ctx.client, {
      label: requireString(planned, "label"),
      redirect_uri: requireString(planned, "redirect_uri"),
      public: planned.public === true,
    });
    if (created.adopted) warn(...adoptedWarning("mgmt_oauth_client", created.value.id));
    // An adopted client's secret was in the lost answer: a reset gives it one we know.
    // From here the client exists: any later failure keeps it in state (tainted) with what is known.
    let made = created.value;
    if (created.adopted) {
      try {
        made = await ctx.client.resetOAuthClientSecret(created.value.id);
      } catch (err) {
        throw new PartialApply(toState(made, { ...planned, secret: null }, null), err);
      }
    }
    const state = toState(made, { ...planned, secret: made.secret }, null);
    const thumbnail = knownString(planned, "thumbnail");
    if (thumbnail === undefined) return state;
    try {
      await upload(ctx, made.id, thumbnail);
      return toState(await ctx.client.getOAuthClient(made.id), state, thumbnail);
    } catch (err) {
      throw new PartialApply(state, err);
    }
  },

  async read({ ctx }, state) {
    const id = requireString(state, "id");
    const live = await ctx.reads.oauthClients.read(id);
    if (live === null) return null;
    return toState(live, state, await liveThumbnail(ctx, id, (state.thumbnail as string | null) ?? null));
  },

  async update({ ctx }, prior, planned) {
    ctx.reads.oauthClients.invalidate();
    const id = requireString(prior, "id");
    const change = {
      ...(planned.label !== prior.label ? { label: requireString(planned, "label") } : {}),
      ...(planned.redirect_uri !== prior.redirect_uri ? { redirect_uri: requireString(planned, "redirect_uri") } : {}),
      ...(planned.public !== prior.public ? { public: planned.public === true } : {}),
    };
    let live = Object.keys(change).length > 0 ? await ctx.client.updateOAuthClient(id, change) : undefined;
    let secret = prior.secret ?? null;
    if (!typedEqual("number", prior.secret_version ?? null, planned.secret_version ?? null)) {
      const reset = await ctx.client.resetOAuthClientSecret(id);
      secret = reset.secret;
      live = reset;
    }
    const thumbnail = knownString(planned, "thumbnail");
    if (thumbnail !== undefined && prior.thumbnail !== thumbnail) {
      const kept = toState(live ?? (await ctx.client.getOAuthClient(id)), { ...planned, secret }, (prior.thumbnail as string | null) ?? null);
      try {
        await upload(ctx, id, thumbnail);
      } catch (err) {
        throw new PartialApply(kept, err);
      }
      live = undefined;
    }
    return toState(live ?? (await ctx.client.getOAuthClient(id)), { ...planned, secret }, thumbnail ?? null);
  },

  async delete({ ctx }, state) {
    ctx.reads.oauthClients.invalidate();
    await orNullIfGone(() => ctx.client.deleteOAuthClient(requireString(state, "id")));
  },

  async importState({ ctx }, id) {
    const live = await orNullIfGone(() => ctx.client.getOAuthClient(id));
    return live === null ? null : toState(live, null, null);
  },
});
