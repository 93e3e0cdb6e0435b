/** `/account/entity-transfers` (deprecated). */
import type { FastifyRequest } from "fastify";
import { API_FILTERABLE, EmptyBody, EntityTransfer, EntityTransferCreate, TRANSFER_TOKEN } from "../../../contract";
import type { TransferService } from "./service";
import { notFound } from "../../domain/errors";
import type { TransferView } from "./service";
import { answer, pageView } from "../../http/present";
import type { Router } from "../../http/router";

const transferView = (t: TransferView): EntityTransfer => ({
  created: t.created,
  entities: { computes: t.entities.computes },
  expiry: t.expiry,
  is_sender: t.is_sender,
  status: t.status,
  token: t.token,
  updated: t.updated,
});

const KEEPS_WHAT_IT_REFUSES = "a transfer found expired (stale) or failed is stored, then refused";

function token(req: FastifyRequest): string {
  const value = (req.params as Record<string, unknown>).token;
  if (typeof value !== "string" || !TRANSFER_TOKEN.test(value)) throw notFound();
  return value;
}

export function entityTransferRoutes(r: Router, domain: { transfers: TransferService }): void {
  r.list(
    "/account/entity-transfers",
    "account:read_only",
    { item: EntityTransfer, filter: API_FILTERABLE["/account/entity-transfers"], summary: "List entity transfers (deprecated)" },
    async ({ actor }, query) => pageView(await domain.transfers.list(actor, query), transferView),
  );

  r.post(
    "/account/entity-transfers",
    "account:read_write",
    { summary: "Create an entity transfer (deprecated)", body: EntityTransferCreate, response: EntityTransfer },
    async ({ actor, body }) => {
      const input = body();
      return answer(EntityTransfer, transferView(await domain.transfers.create(actor, input)));
    },
  );

  r.get(
    "/account/entity-transfers/:token",
    "account:read_only",
    { summary: "View an entity transfer (deprecated)", response: EntityTransfer },
    async ({ req, actor }) => answer(EntityTransfer, transferView(await domain.transfers.get(actor, token(req)))),
  );

  // Cancel and accept store what they find before refusing (a transfer past its expiry becomes stale, one whose
  // computes left the sender fails): that must stay when the request answers 400, so they commit on their own, and
  // their answer is shaped before that commit.
  r.delete(
    "/account/entity-transfers/:token",
    "account:read_write",
    { summary: "Cancel an entity transfer (deprecated)", response: EmptyBody, ownCommit: KEEPS_WHAT_IT_REFUSES },
    async ({ req, actor }) => {
      const done = answer(EmptyBody, {});
      await domain.transfers.cancel(actor, token(req));
      return done;
    },
  );

  r.post(
    "/account/entity-transfers/:token/accept",
    "account:read_write",
    { summary: "Accept an entity transfer (deprecated)", response: EmptyBody, ownCommit: KEEPS_WHAT_IT_REFUSES },
    async ({ req, actor }) => {
      const done = answer(EmptyBody, {});
      await domain.transfers.accept(actor, token(req));
      return done;
    },
  );
}
