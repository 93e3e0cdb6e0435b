/**
 * Tags (`/tags`) and the objects they apply to. The objects (compute instances,
 * domains, volumes, load balancers) are read-only here: the API cannot create them; fixtures
 * and the admin namespace seed them. Field sets follow the seed's tables plus upstream's
 * names where the seed says "not shown" (`watchdog_enabled`, `backups.schedule.day`).
 */
import { z } from "zod";
import { Timestamp, ruled } from "./common";
import { CLIENT_CONN_THROTTLE, tagLabel } from "./field-rules";

export const Tag = z.object({ label: z.string() });
export type Tag = z.infer<typeof Tag>;

const ids = z.array(z.number().int().positive("must be a positive integer")).max(500, "At most 500 ids per type");

/** `POST /tags`. The seed leaves the domain list's name "not shown"; upstream calls it `domains`. */
export const TagCreate = z.object({
  label: ruled(tagLabel),
  computes: ids.optional(),
  domains: ids.optional(),
  volumes: ids.optional(),
  nodebalancers: ids.optional(),
});
export type TagCreate = z.output<typeof TagCreate>;

export const BACKUP_WINDOWS = ["Scheduling", "W0", "W2", "W4", "W6", "W8", "W10", "W12", "W14", "W16", "W18", "W20", "W22"] as const;
export const BACKUP_DAYS = ["Scheduling", "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

export const ComputeInstance = z.object({
  alerts: z.object({
    cpu: z.number().int(),
    io: z.number().int(),
    network_in: z.number().int(),
    network_out: z.number().int(),
    transfer_quota: z.number().int(),
  }),
  backups: z.object({
    available: z.boolean(),
    enabled: z.boolean(),
    last_successful: Timestamp.nullable(),
    schedule: z.object({ day: z.enum(BACKUP_DAYS).nullable(), window: z.enum(BACKUP_WINDOWS).nullable() }),
  }),
  created: Timestamp,
  group: z.string(),
  has_user_data: z.boolean(),
  host_uuid: z.string(),
  hypervisor: z.literal("kvm"),
  id: z.number().int(),
  image: z.string().nullable(),
  ipv4: z.array(z.string()),
  ipv6: z.string().nullable(),
  label: z.string(),
  region: z.string(),
  specs: z.object({ disk: z.number().int(), gpus: z.number().int(), memory: z.number().int(), transfer: z.number().int(), vcpus: z.number().int() }),
  status: z.string(),
  tags: z.array(z.string()),
  type: z.string(),
  updated: Timestamp,
  watchdog_enabled: z.boolean(),
});
export type ComputeInstance = z.infer<typeof ComputeInstance>;

export const DomainZone = z.object({
  axfr_ips: z.array(z.string()),
  description: z.string(),
  domain: z.string(),
  expire_sec: z.number().int(),
  group: z.string(),
  id: z.number().int(),
  master_ips: z.array(z.string()),
  refresh_sec: z.number().int(),
  retry_sec: z.number().int(),
  soa_email: z.string(),
  status: z.enum(["disabled", "active"]),
  tags: z.array(z.string()),
  ttl_sec: z.number().int(),
  type: z.enum(["master", "slave"]),
});
export type DomainZone = z.infer<typeof DomainZone>;

export const Volume = z.object({
  compute_id: z.number().int().nullable(),
  compute_label: z.string().nullable(),
  created: Timestamp,
  filesystem_path: z.string(),
  hardware_type: z.enum(["hdd", "nvme"]),
  id: z.number().int(),
  label: z.string(),
  region: z.string(),
  size: z.number().int(),
  status: z.enum(["creating", "active", "resizing"]),
  tags: z.array(z.string()),
  updated: Timestamp,
});
export type Volume = z.infer<typeof Volume>;

export const NodeBalancer = z.object({
  client_conn_throttle: z.number().int().min(CLIENT_CONN_THROTTLE.min).max(CLIENT_CONN_THROTTLE.max),
  created: Timestamp,
  host: z.string(),
  id: z.number().int(),
  ipv4: z.string(),
  ipv6: z.string().nullable(),
  label: z.string(),
  region: z.string(),
  tags: z.array(z.string()),
  transfer: z.object({ in: z.number().nullable(), out: z.number().nullable(), total: z.number().nullable() }),
  updated: Timestamp,
});
export type NodeBalancer = z.infer<typeof NodeBalancer>;

/** One item of `GET /tags/{label}`: upstream wraps each object as `{type, data}`. */
export const TaggedObject = z.discriminatedUnion("type", [
  z.object({ type: z.literal("compute"), data: ComputeInstance }),
  z.object({ type: z.literal("domain"), data: DomainZone }),
  z.object({ type: z.literal("volume"), data: Volume }),
  z.object({ type: z.literal("nodebalancer"), data: NodeBalancer }),
]);
export type TaggedObject = z.infer<typeof TaggedObject>;
