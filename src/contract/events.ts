/** Part 2, events: `/account/events`, the event view and the two mark operations. */
import { z } from "zod";
import { Timestamp } from "./common";

export const EVENT_STATUSES = ["failed", "finished", "notification", "scheduled", "started"] as const;

/** Upstream's action names (`linode_*` renamed `compute_*`); "new actions may be added". */
export const EVENT_ACTIONS = [
  "account_update", "account_settings_update", "aclb_create", "aclb_update", "aclb_delete", "aclb_config_create",
  "aclb_config_update", "aclb_config_delete", "aclb_route_create", "aclb_route_update", "aclb_route_delete",
  "aclb_servicetarget_create", "aclb_servicetarget_update", "aclb_servicetarget_delete", "aclb_certificate_create",
  "aclb_certificate_update", "aclb_certificate_delete", "backups_enable", "backups_cancel", "backups_restore",
  "community_question_reply", "community_like", "credit_card_updated", "disk_create", "disk_delete", "disk_update",
  "disk_duplicate", "disk_imagize", "disk_resize", "dns_record_create", "dns_record_delete", "dns_record_update",
  "dns_zone_create", "dns_zone_delete", "dns_zone_import", "dns_zone_update", "entity_transfer_accept",
  "entity_transfer_cancel", "entity_transfer_create", "entity_transfer_fail", "entity_transfer_stale", "firewall_create",
  "firewall_delete", "firewall_disable", "firewall_enable", "firewall_update", "firewall_device_add",
  "firewall_device_remove", "host_reboot", "image_delete", "image_update", "image_upload", "ipaddress_update",
  "lassie_reboot", "lish_boot", "compute_addip", "compute_boot", "compute_clone", "compute_create", "compute_delete",
  "compute_update", "compute_deleteip", "compute_migrate", "compute_migrate_datacenter",
  "compute_migrate_datacenter_create", "compute_mutate", "compute_mutate_create", "compute_reboot", "compute_rebuild",
  "compute_resize", "compute_resize_create", "compute_shutdown", "compute_snapshot", "compute_config_create",
  "compute_config_delete", "compute_config_update", "kube_node_create", "longviewclient_create", "longviewclient_delete",
  "longviewclient_update", "managed_disabled", "managed_enabled", "managed_service_create", "managed_service_delete",
  "nodebalancer_create", "nodebalancer_delete", "nodebalancer_update", "nodebalancer_config_create",
  "nodebalancer_config_delete", "nodebalancer_config_update", "nodebalancer_node_create", "nodebalancer_node_delete",
  "nodebalancer_node_update", "oauth_client_create", "oauth_client_delete", "oauth_client_secret_reset",
  "oauth_client_update", "obj_access_key_create", "obj_access_key_delete", "obj_access_key_update", "password_reset",
  "payment_method_add", "payment_submitted", "profile_update", "stackscript_create", "stackscript_delete",
  "stackscript_update", "stackscript_publicize", "stackscript_revise", "subnet_create", "subnet_delete", "subnet_update",
  "tag_create", "tag_delete", "tfa_disabled", "tfa_enabled", "ticket_attachment_upload", "ticket_create", "ticket_update",
  "token_create", "token_delete", "token_update", "user_create", "user_update", "user_delete", "user_ssh_key_add",
  "user_ssh_key_delete", "user_ssh_key_update", "vlan_attach", "vlan_detach", "volume_attach", "volume_clone",
  "volume_create", "volume_delete", "volume_update", "volume_detach", "volume_resize", "vpc_create", "vpc_delete",
  "vpc_update",
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

export const EventEntity = z.object({
  id: z.union([z.number().int(), z.string()]),
  label: z.string(),
  type: z.string(),
  url: z.string(),
});
export type EventEntity = z.infer<typeof EventEntity>;

export const Event = z.object({
  action: z.string(),
  created: Timestamp,
  duration: z.number(),
  entity: EventEntity.nullable(),
  id: z.number().int(),
  message: z.string().nullable(),
  percent_complete: z.number().int().nullable(),
  rate: z.string().nullable(),
  read: z.boolean(),
  secondary_entity: EventEntity.nullable(),
  seen: z.boolean(),
  status: z.enum(EVENT_STATUSES),
  time_remaining: z.string().nullable(),
  username: z.string().nullable(),
});
export type Event = z.infer<typeof Event>;

/** The fields `X-Filter` may name on the event list (upstream's FILTERABLE set). */
export const EVENT_FILTERABLE = ["id", "action", "created", "read", "entity.id", "entity.type"] as const;
