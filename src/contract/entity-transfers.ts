/** Entity transfers (deprecated): `/account/entity-transfers`. */
import { z } from "zod";
import { Timestamp } from "./common";

export const TRANSFER_STATUSES = ["accepted", "canceled", "completed", "failed", "pending", "stale"] as const;
/** A transfer can be accepted until 24 hours after its creation. */
export const TRANSFER_LIFETIME_HOURS = 24;

export const EntityTransfer = z.object({
  created: Timestamp,
  entities: z.object({ computes: z.array(z.number().int()) }),
  expiry: Timestamp,
  is_sender: z.boolean(),
  status: z.enum(TRANSFER_STATUSES),
  token: z.string(),
  updated: Timestamp,
});
export type EntityTransfer = z.infer<typeof EntityTransfer>;

/** Only `computes` is a known entity type; another key is refused rather than dropped. */
export const EntityTransferCreate = z.object({
  entities: z
    .object({
      computes: z
        .array(z.number().int().positive("must be a positive integer"))
        .min(1, "At least one compute instance is required")
        .max(100, "At most 100 entities per transfer"),
    })
    .strict(),
});
export type EntityTransferCreate = z.output<typeof EntityTransferCreate>;

/** Path tokens are UUIDs; anything else is not found. */
export const TRANSFER_TOKEN = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
