/**
 * mgmt_oauth_client: an OAuth client of the account. Its secret is shown by create and by a
 * reset only; it is kept in state (sensitive) and never replaced by the placeholder reads
 * return. Changing `secret_version` resets it in place. The thumbnail is uploaded as bytes and
 * compared, as bytes, with what the public thumbnail operation serves.
 */
import type { z } from "zod";
import type { OAuthClient, OAuthClientCreate, OAuthClientUpdate } from "../../../contract";
import { OAUTH_CLIENT_STATUSES } from "../../../contract/enums";
import {
  OAUTH_CLIENT_CREATE_DEFAULTS,
  OAUTH_CLIENT_LABEL_MAX,
  THUMBNAIL_MAX_BYTES,
  oauthClientLabel,
  redirectUri,
  secretInName,
  sniffImage,
} from "../../../contract/field-rules";
import type { ProviderContext } from "../../config";
import { bool, number, string } from "../../framework/attributes";
import { typedEqual } from "../../framework/equality";
import { PartialApply, defineResource } from "../../framework/resource";
import { Unknown, known } from "../../framework/value";
import type { PlannedOf, StateOf } from "../../framework/value-types";
import { orNullIfGone } from "../../../client/errors";
import { adoptedWarning, stateId } from "../ids";
import { createOAuthClientOnce, oauthClientCollection, oauthClientTwins } from "./collection";

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

/**
 * The client as the API shows it, in state form: the resource's state and the items of
 * data mgmt_oauth_clients both are this, so the two cannot describe a client differently.
 */
export const oauthClientFields = (c: OAuthClient) => ({
  id: c.id,
  label: c.label,
  public: c.public,
  redirect_uri: c.redirect_uri,
  status: c.status,
  thumbnail_url: c.thumbnail_url,
});

type State = StateOf<typeof attributes>;
type Planned = PlannedOf<typeof attributes>;

/**
 * The API fields the configuration sets, as the contract's create body: every field of it
 * (typed complete), and an update sends those of them that differ from the prior state.
 */
const requested = (planned: Planned): Required<z.input<typeof OAuthClientCreate>> & Required<z.input<typeof OAuthClientUpdate>> => ({
  label: planned.label,
  redirect_uri: planned.redirect_uri,
  public: planned.public === true,
});

/** What the API cannot tell and state keeps: the secret (shown by create and resets only) and its version. */
type Kept = Pick<State, "secret" | "secret_version">;

const toState = (c: OAuthClient, kept: Kept | null, thumbnail: string | null): State => ({
  ...oauthClientFields(c),
  secret: kept?.secret ?? null,
  secret_version: kept?.secret_version ?? null,
  thumbnail,
});

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

/** What each field of a client is, said once for the resource and the data source that lists clients. */
export const OAUTH_CLIENT_ABOUT = {
  id: "The client id (public).",
  label: `The name shown to users authorizing the client, 1 to ${OAUTH_CLIENT_LABEL_MAX} characters.`,
  redirect_uri: "Where users are sent after authorizing, with an exchange code: an absolute http or https URL.",
  public: "Whether the client is public (cannot keep a secret, such as a single-page app).",
  status: `${OAUTH_CLIENT_STATUSES.slice(0, -1).join(", ")} or ${OAUTH_CLIENT_STATUSES.at(-1)}.`,
  thumbnail_url: "Where the thumbnail is served publicly; null without one.",
} as const;

const attributes = {
  id: string("computed", OAUTH_CLIENT_ABOUT.id, { keepPrior: true }),
  label: string("required", `${OAUTH_CLIENT_ABOUT.label} Changed in place.`, { secret: secretInName, validate: oauthClientLabel }),
  redirect_uri: string("required", `${OAUTH_CLIENT_ABOUT.redirect_uri} Changed in place.`, { validate: redirectUri }),
  public: bool("optional_computed", `${OAUTH_CLIENT_ABOUT.public} Changed in place.`, { default: OAUTH_CLIENT_CREATE_DEFAULTS.public }),
  secret: string("computed", "The client secret, known from creation and from each reset.", { sensitive: true, keepPrior: true }),
  secret_version: number(
    "optional",
    "Any number; changing it resets the secret in place (the new one is known after apply). The usual way to rotate: increment it.",
  ),
  status: string("computed", OAUTH_CLIENT_ABOUT.status, { keepPrior: true }),
  thumbnail: string(
    "optional",
    `The client's thumbnail: PNG, JPEG or GIF bytes, base64-encoded as filebase64() gives them, at most ${THUMBNAIL_MAX_BYTES} bytes. The API cannot delete a thumbnail, so removing this attribute only stops managing it.`,
    { semanticEquals: sameImage, validate: thumbnailProblem },
  ),
  thumbnail_url: string("computed", OAUTH_CLIENT_ABOUT.thumbnail_url, { keepPrior: true }),
};

export const oauthClientResource = defineResource<ProviderContext>()({
  typeName: "mgmt_oauth_client",
  description:
    "An OAuth client of the account, for apps that act for the account's users. The secret is known only from creation or a reset (change `secret_version`); it is stored in state (sensitive) and is not available after an import. Deleting the client revokes every token it issued.",
  importId: { description: "the client id (the secret cannot be imported and stays null)", example: "2737bf16b39ab5d7b4a1" },
  attributes,

  modifyPlan(draft) {
    const { prior, planned } = draft;
    if (prior === null) return;
    if (!typedEqual("number", prior.secret_version ?? null, planned.secret_version ?? null)) planned.secret = Unknown;
    const thumbnail = planned.thumbnail ?? null;
    if (thumbnail !== null && prior.thumbnail !== thumbnail) planned.thumbnail_url = Unknown;
  },

  async create({ ctx, warn }, planned) {
    const created = await createOAuthClientOnce(ctx.client, requested(planned));
    if (created.adopted) warn(...adoptedWarning("mgmt_oauth_client", created.value.id));
    const version = planned.secret_version;
    // An adopted client's secret was in the lost answer: a reset gives it one we know.
    // From here the client exists: any later failure keeps it in state (tainted) with what is known.
    let made = created.value;
    if (created.adopted) {
      try {
        made = await ctx.client.resetOAuthClientSecret(created.value.id);
      } catch (err) {
        throw new PartialApply(toState(made, { secret: null, secret_version: version }, null), err);
      }
    }
    const state = toState(made, { secret: made.secret, secret_version: version }, null);
    const thumbnail = planned.thumbnail;
    if (thumbnail === null) return state;
    try {
      await upload(ctx, made.id, thumbnail);
      return toState(await ctx.client.getOAuthClient(made.id), state, thumbnail);
    } catch (err) {
      throw new PartialApply(state, err);
    }
  },

  async read({ ctx }, state) {
    const id = stateId(state);
    const live = await ctx.reads.of(oauthClientCollection).read(id);
    if (live === null) return null;
    return toState(live, state, await liveThumbnail(ctx, id, state.thumbnail));
  },

  async update({ ctx }, prior, planned) {
    const id = stateId(prior);
    const wanted = requested(planned);
    const change = Object.fromEntries(Object.entries(wanted).filter(([field, value]) => value !== prior[field as keyof typeof wanted]));
    let live = Object.keys(change).length > 0 ? await ctx.client.updateOAuthClient(id, change) : undefined;
    const kept = { secret: prior.secret, secret_version: planned.secret_version };
    if (!typedEqual("number", prior.secret_version, planned.secret_version)) {
      const reset = await ctx.client.resetOAuthClientSecret(id);
      kept.secret = reset.secret;
      live = reset;
    }
    const thumbnail = planned.thumbnail;
    if (thumbnail !== null && prior.thumbnail !== thumbnail) {
      const before = toState(live ?? (await ctx.client.getOAuthClient(id)), kept, prior.thumbnail);
      try {
        await upload(ctx, id, thumbnail);
      } catch (err) {
        throw new PartialApply(before, err);
      }
      live = undefined;
    }
    return toState(live ?? (await ctx.client.getOAuthClient(id)), kept, thumbnail);
  },

  async delete({ ctx }, state) {
    await orNullIfGone(() => ctx.client.deleteOAuthClient(stateId(state)));
  },

  async importState({ ctx }, id) {
    const live = await orNullIfGone(() => oauthClientCollection.get(ctx.client, id));
    return live === null ? null : toState(live, null, null);
  },

  async twins({ ctx }, planned) {
    const label = known(planned.label);
    const redirect = known(planned.redirect_uri);
    const clients = label === undefined || redirect === undefined ? null : await ctx.reads.of(oauthClientCollection).all();
    return clients ? oauthClientTwins(clients, label!, redirect!) : [];
  },
});
