/**
 * Tags (`/tags`): for unrestricted users only. Creating a tag applies it to every listed
 * object, all of which must be writable by the caller (on the caller's account), or nothing
 * is created. Deleting a tag removes it from every object.
 */
import type { Page, PageQuery, TagCreate, TaggedObject } from "../../../contract";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { ObjectKind, TagRecord, TagRepos } from "./store";
import { requireUnrestricted } from "../../auth/grants";
import { wireNow, type Actor, type Deps } from "../../domain/context";
import { DomainError, notFound } from "../../domain/errors";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import type { ObjectService } from "./objects";
import { pageFrom, pageOf } from "../../domain/paging";

/** Body field of each object kind. */
const FIELD_OF: Record<ObjectKind, "computes" | "domains" | "volumes" | "nodebalancers"> = {
  compute: "computes",
  domain: "domains",
  volume: "volumes",
  nodebalancer: "nodebalancers",
};

export class TagService {
  constructor(
    private readonly deps: Deps<TagRepos & Pick<ProfileRepos, "users" | "grants"> & EventRepos>,
    private readonly objects: ObjectService,
  ) {}

  list(actor: Actor, query: PageQuery): Promise<Page<TagRecord>> {
    return this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      return pageOf(query, (slice) => tx.tags.list(actor.user.account_id, slice));
    });
  }

  async create(actor: Actor, input: TagCreate): Promise<TagRecord> {
    const { clock } = this.deps;
    return this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      const accountId = actor.user.account_id;
      if ((await tx.tags.get(accountId, input.label)) !== undefined) {
        throw new DomainError("invalid", [{ field: "label", reason: "A tag with this label already exists" }]);
      }
      const targets: Array<[ObjectKind, number]> = [];
      const problems: Array<{ field: string; reason: string }> = [];
      for (const [kind, field] of Object.entries(FIELD_OF) as Array<[ObjectKind, (typeof FIELD_OF)[ObjectKind]]>) {
        for (const [i, id] of (input[field] ?? []).entries()) {
          const object = await tx.objects.get(kind, id);
          if (object === undefined || object.account_id !== accountId)
            problems.push({ field: `${field}.${i}`, reason: `You do not have read_write access to ${kind} ${id}` });
          else targets.push([kind, id]);
        }
      }
      if (problems.length > 0) throw new DomainError("forbidden", problems);
      const tag = await tx.tags.insert({ account_id: accountId, label: input.label, created: wireNow(clock) });
      for (const [kind, id] of targets) await tx.tags.link(tag.id, kind, id);
      await noteEvent(this.deps, { actor, action: "tag_create", entity: entities.tag(tag.label) }, tx);
      return tag;
    });
  }

  /** `GET /tags/{label}`: the tagged objects, as `{type, data}`, ordered by type then id. */
  objectsOf(actor: Actor, label: string, query: PageQuery): Promise<Page<TaggedObject>> {
    return this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      const tag = await tx.tags.get(actor.user.account_id, label);
      if (tag === undefined) throw notFound();
      const all = (await tx.objects.listTagged(tag.id)).filter((o) => o.account_id === actor.user.account_id);
      const page = pageFrom(query, all);
      return { ...page, data: await this.objects.views(page.data, tx) };
    });
  }

  async delete(actor: Actor, label: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      const tag = await tx.tags.get(actor.user.account_id, label);
      if (tag === undefined) throw notFound();
      await tx.tags.delete(tag.id);
      await noteEvent(this.deps, { actor, action: "tag_delete", entity: entities.tag(tag.label) }, tx);
    });
  }
}
