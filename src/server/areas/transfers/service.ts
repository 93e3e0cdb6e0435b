/**
 * Entity transfers (deprecated): an account offers compute instances it owns to whoever
 * holds the transfer's token. Unrestricted users only. States: `pending` on creation; after
 * 24 hours (by the clock) a pending transfer is `stale` (reported so, then stored so on the
 * next change); the sender may cancel a pending one (`canceled`); another account may accept
 * a pending one, which moves the instances at once (`completed`), or `failed` when an
 * instance is no longer the sender's.
 */
import { TRANSFER_LIFETIME_HOURS, type EntityTransferCreate, type Page, type PageQuery } from "../../../contract";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TagRepos } from "../tags/store";
import type { TransferRecord, TransferRepos, TransferStatus } from "./store";

type Repos = TransferRepos & TagRepos & Pick<ProfileRepos, "users" | "grants"> & EventRepos;
type Store = StoreOf<Repos>;
import { requireUnrestricted } from "../../auth/grants";
import { MINUTE, stillAhead, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { DomainError, forbidden, invalid, notFound } from "../../domain/errors";
import { entities } from "../../domain/event-entities";
import { noteEvent, recordEvent } from "../events";
import { pageOf } from "../../domain/paging";

export interface TransferView extends TransferRecord {
  is_sender: boolean;
}

export class TransferService {
  constructor(private readonly deps: Deps<Repos>) {}

  /** The status as of now: a pending transfer past its expiry is stale. */
  private statusOf(t: TransferRecord): TransferStatus {
    return t.status === "pending" && !stillAhead(t.expiry, this.deps.clock) ? "stale" : t.status;
  }

  private view(actor: Actor, t: TransferRecord): TransferView {
    const status = this.statusOf(t);
    return { ...t, status, is_sender: t.account_id === actor.user.account_id };
  }

  list(actor: Actor, query: PageQuery): Promise<Page<TransferView>> {
    return this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      const page = await pageOf(query, (slice) => tx.transfers.list(actor.user.account_id, slice));
      return { ...page, data: page.data.map((t) => this.view(actor, t)) };
    });
  }

  private async find(actor: Actor, token: string, store: Store): Promise<TransferRecord> {
    await requireUnrestricted(store, actor);
    const t = await store.transfers.get(token.toUpperCase());
    if (t === undefined) throw notFound();
    return t;
  }

  /** Any account holding the token may view a transfer (that is how the receiver learns of it). */
  async get(actor: Actor, token: string): Promise<TransferView> {
    return this.view(actor, await this.find(actor, token, this.deps.store));
  }

  async create(actor: Actor, input: EntityTransferCreate): Promise<TransferView> {
    const { clock, secrets } = this.deps;
    return this.deps.store.transaction(async (tx) => {
      await requireUnrestricted(tx, actor);
      const accountId = actor.user.account_id;
      const computes = [...new Set(input.entities.computes)];
      const now = wireNow(clock);
      const pending = (await tx.transfers.pendingOf(accountId)).filter((t) => t.expiry > now);
      const problems: Array<{ field: string; reason: string }> = [];
      for (const [i, id] of computes.entries()) {
        const object = await tx.objects.get("compute", id);
        if (object === undefined || object.account_id !== accountId) {
          problems.push({ field: `entities.computes.${i}`, reason: `compute ${id} is not on this account` });
        } else if (pending.some((t) => t.entities.computes.includes(id))) {
          problems.push({ field: `entities.computes.${i}`, reason: `compute ${id} is already part of a pending transfer` });
        }
      }
      if (problems.length > 0) throw new DomainError("invalid", problems);
      const created = await tx.transfers.insert({
        token: secrets.uuid().toUpperCase(),
        account_id: accountId,
        status: "pending",
        entities: { computes },
        created: now,
        updated: now,
        expiry: wireAt(clock, TRANSFER_LIFETIME_HOURS * 60 * MINUTE),
      });
      await noteEvent(this.deps, { actor, action: "entity_transfer_create", entity: entities.entityTransfer(created.token) }, tx);
      return this.view(actor, created);
    });
  }

  /** Refuses a move from a transfer that is no longer pending (storing `stale` when it expired). */
  private async requirePending(t: TransferRecord, store: Store): Promise<void> {
    const status = this.statusOf(t);
    if (status === "pending") return;
    if (status === "stale" && t.status !== "stale") {
      await store.transfers.update(t.id, { status: "stale", updated: t.expiry });
      await recordEvent(this.deps, { actor: null, accountId: t.account_id, action: "entity_transfer_stale", entity: entities.entityTransfer(t.token) }, store);
    }
    throw invalid(null, status === "stale" ? "This transfer has expired" : `This transfer is ${status}`);
  }

  async cancel(actor: Actor, token: string): Promise<void> {
    const outcome = await this.deps.store.transaction(async (tx) => {
      const t = await this.find(actor, token, tx);
      if (t.account_id !== actor.user.account_id) throw forbidden(null, "Only the sending account can cancel a transfer");
      try {
        await this.requirePending(t, tx);
      } catch (err) {
        return err;
      }
      await tx.transfers.update(t.id, { status: "canceled", updated: wireNow(this.deps.clock) });
      await noteEvent(this.deps, { actor, action: "entity_transfer_cancel", entity: entities.entityTransfer(t.token) }, tx);
      return null;
    });
    if (outcome !== null) throw outcome;
  }

  async accept(actor: Actor, token: string): Promise<void> {
    const now = wireNow(this.deps.clock);
    const outcome = await this.deps.store.transaction(async (tx) => {
      const t = await this.find(actor, token, tx);
      if (t.account_id === actor.user.account_id) throw invalid(null, "A transfer cannot be accepted by the account that created it");
      try {
        await this.requirePending(t, tx);
      } catch (err) {
        return err;
      }
      const objects = await Promise.all(t.entities.computes.map((id) => tx.objects.get("compute", id)));
      if (objects.some((o) => o === undefined || o.account_id !== t.account_id)) {
        await tx.transfers.update(t.id, { status: "failed", updated: now, receiver_account_id: actor.user.account_id });
        await noteEvent(this.deps, { actor, action: "entity_transfer_fail", entity: entities.entityTransfer(t.token), status: "failed" }, tx);
        return invalid(null, "The transfer failed: an entity is no longer on the sending account");
      }
      for (const o of objects) {
        await tx.objects.setAccount("compute", o!.id, actor.user.account_id, now);
        await tx.tags.unlinkObject("compute", o!.id);
      }
      await tx.transfers.update(t.id, { status: "completed", updated: now, receiver_account_id: actor.user.account_id });
      await noteEvent(this.deps, { actor, action: "entity_transfer_accept", entity: entities.entityTransfer(t.token) }, tx);
      await noteEvent(this.deps, { actor: null, accountId: t.account_id, action: "entity_transfer_accept", entity: entities.entityTransfer(t.token) }, tx);
      return null;
    });
    if (outcome !== null) throw outcome;
  }
}
