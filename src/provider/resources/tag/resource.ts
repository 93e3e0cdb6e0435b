/**
 * mgmt_tag: a tag and the objects it was applied to. The API applies a tag to objects only when
 * it creates the tag and cannot change them afterwards, so any change to the lists replaces the
 * tag (delete, then create with the new lists). A refresh reads every tag's objects one request
 * at a time, unless batched reads can vouch they are unchanged (../../batched-reads.ts, TagReads).
 */
import type { TagCreate, TaggedObject } from "../../../contract";
import { TAG_LABEL, tagLabel } from "../../../contract/field-rules";
import type { ProviderContext } from "../../config";
import { set, string } from "../../framework/attributes";
import type { PrivateState } from "../../framework/private-state";
import { PartialApply, defineResource, type ResourceOperation } from "../../framework/resource";
import { eachElement } from "../../framework/validators";
import type { ObjectValue, TfValue } from "../../framework/value";
import type { StateOf } from "../../framework/value-types";
import { orNullIfGone } from "../../../client/errors";
import { adoptedWarning } from "../ids";
import { createTagOnce } from "./collection";

/** Each list of the create body, the object type of its items in `GET /tags/{label}`. */
const LISTS = { computes: "compute", domains: "domain", volumes: "volume", nodebalancers: "nodebalancer" } as const satisfies Record<
  string,
  TaggedObject["type"]
>;
type ListName = keyof typeof LISTS;

const positiveId = (v: number): string | undefined => (Number.isInteger(Number(v)) && Number(v) > 0 ? undefined : `must be a positive whole number; got ${v}`);

const idList = (what: string) =>
  set("optional", `Ids of the ${what} to tag. The API cannot change a tag's objects, so a change replaces the tag.`, "number", {
    requiresReplace: true,
    validate: eachElement(positiveId),
  });

const ids = (v: TfValue | undefined): number[] => (Array.isArray(v) ? v.map(Number) : []);

const attributes = {
  id: string("computed", "The tag's label.", { keepPrior: true }),
  label: string("required", `The tag, ${TAG_LABEL.min} to ${TAG_LABEL.max} characters.`, { requiresReplace: true, validate: tagLabel }),
  computes: idList("compute instances"),
  domains: idList("domains"),
  volumes: idList("volumes"),
  nodebalancers: idList("load balancers (NodeBalancers)"),
};

type State = StateOf<typeof attributes>;

/** Private state: when (provider's clock, before asking) the tag's objects were last read from the API. */
const OBJECTS_READ_AT = "objects_read_at";

const objectsReadAt = (priv: PrivateState): Date | null => {
  const at = priv.get(OBJECTS_READ_AT);
  const date = typeof at === "string" ? new Date(at) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
};

/** The tag as the API shows it, one `GET /tags/{label}`; marks when, for batched reads to come. */
async function readTag(
  { ctx, now, private: priv }: ResourceOperation<ProviderContext>,
  label: string,
  kept: { readonly [list in ListName]: TfValue } | null,
): Promise<State | null> {
  const asked = now();
  const objects = await orNullIfGone(async () => {
    const all: TaggedObject[] = [];
    for await (const o of ctx.client.listTaggedObjects(label)) all.push(o);
    return all;
  });
  if (objects === null) return null;
  priv.set(OBJECTS_READ_AT, asked.toISOString());
  const lists = {} as Record<ListName, readonly number[] | null>;
  for (const [list, type] of Object.entries(LISTS) as [ListName, TaggedObject["type"]][]) {
    const live = objects.filter((o) => o.type === type).map((o) => o.data.id);
    // An unset list and an empty one mean the same: keep whichever the state has.
    lists[list] = live.length === 0 && (kept?.[list] ?? null) === null ? null : live.sort((a, b) => a - b);
  }
  return { id: label, label, ...lists };
}

export const tagResource = defineResource<ProviderContext>()({
  typeName: "mgmt_tag",
  description:
    "A tag on the account and the compute instances, domains, volumes and load balancers it was applied to. Deleting it removes it from every object. Unrestricted users only.",
  importId: { description: "the tag's label", example: "production" },
  attributes,

  async create(op, planned) {
    const { ctx, warn } = op;
    const label = planned.label;
    const body: TagCreate = { label };
    for (const list of Object.keys(LISTS) as ListName[]) if (planned[list] !== null) body[list] = ids(planned[list]);
    const made = await createTagOnce(ctx.client, body);
    if (made.existed) {
      warn(
        `mgmt_tag "${label}" adopted: it existed already`,
        "A tag with this label and exactly the configured objects existed already (left by an apply that could not record it, or made outside Terraform); it is now managed here instead of failing the create.",
      );
    } else if (made.adopted) {
      warn(...adoptedWarning("mgmt_tag", label));
    }
    // The tag exists now: a failed read-back keeps it in state with what was asked (tainted,
    // so the next apply makes it again) rather than leave a tag no state knows of.
    const asked: ObjectValue = { ...planned, id: label };
    let state: State | null;
    try {
      state = await readTag(op, label, planned);
    } catch (err) {
      throw new PartialApply(asked, err);
    }
    if (state === null) throw new PartialApply(asked, new Error(`the tag "${label}" was created but cannot be read back`));
    return state;
  },

  async read(op, state) {
    const label = state.label;
    const since = objectsReadAt(op.private);
    const vouched = since && (await op.ctx.reads.mgmt_tag.unchangedSince(label, since));
    if (!vouched) return readTag(op, label, state);
    op.private.set(OBJECTS_READ_AT, vouched.toISOString());
    return state;
  },

  // Every argument replaces; an update only ever carries the computed id forward.
  async update(_op, prior, planned) {
    return { ...planned, id: prior.id };
  },

  async delete({ ctx }, state) {
    await orNullIfGone(() => ctx.client.deleteTag(state.label));
  },

  async importState(op, id) {
    return readTag(op, id, null);
  },
});
