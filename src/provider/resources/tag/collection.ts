/**
 * Tags as a collection: listed, keyed and imported by label, and created once. The API reads no
 * tag alone (`GET /tags/{label}` lists its objects), so batched reads vouch for tags their own way
 * (`TagReads` in ../../batched-reads.ts).
 */
import type { Tag, TagCreate, TaggedObject } from "../../../contract";
import { ApiError } from "../../../client/errors";
import type { MgmtClient } from "../../../client";
import { createOnce, matching, type Created } from "../../../client/create-once";
import type { Collection } from "../collection";

export const tagCollection: Collection<Tag> = {
  typeName: "mgmt_tag",
  title: "tags",
  path: "/tags",
  list: (client, o) => client.listTags(o),
  key: (t) => t.label,
  label: (t) => t.label,
  stateKey: "label",
};

/** The create body's list for each type of tagged object. */
const TAG_LISTS = { compute: "computes", domain: "domains", volume: "volumes", nodebalancer: "nodebalancers" } as const;

/** Whether a tag's objects are exactly those a create body names (an absent list is an empty one). */
export function sameTaggedObjects(objects: readonly TaggedObject[], body: TagCreate): boolean {
  return (Object.keys(TAG_LISTS) as TaggedObject["type"][]).every((type) => {
    const live = objects.filter((o) => o.type === type).map((o) => o.data.id);
    const wanted = [...new Set(body[TAG_LISTS[type]] ?? [])];
    return live.length === wanted.length && wanted.every((id) => live.includes(id));
  });
}

const labelTaken = (err: unknown): boolean => err instanceof ApiError && err.status === 400 && err.reasonsFor("label").some((r) => /already exists/i.test(r));

/**
 * Labels are unique: a tag with the label after a lost answer is the one the request made. A
 * create refused because the label exists adopts that tag when it carries exactly the requested
 * objects and no create of this client made it: that is the tag an earlier apply made but could
 * not record (its answer or read-back lost), and the API could not tell it from a new one anyway.
 */
export function createTagOnce(client: MgmtClient, body: TagCreate): Promise<Created<Tag>> {
  const c = tagCollection;
  return createOnce(client, c.typeName, {
    create: () => client.createTag(body),
    candidates: (_since, call) => matching(c.list(client, call), (t) => t.label === body.label),
    key: c.key,
    existing: {
      keyOf: (err) => (labelTaken(err) ? body.label : undefined),
      find: async (label) => (sameTaggedObjects(await matching(client.listTaggedObjects(label), () => true), body) ? { label } : null),
    },
  });
}
