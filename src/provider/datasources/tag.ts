/** data mgmt_tag: the objects carrying one tag, grouped by type. */
import { listAll } from "../../client/paginate";
import type { ComputeInstance, DomainZone, NodeBalancer, Volume } from "../../contract/tags";
import type { ProviderContext } from "../config";
import { bool, int, list, number, object, string, type AttributeSpec } from "../framework/attributes";
import { defineDataSource } from "../framework/resource";
import type { ObjectValue } from "../framework/value";
import { toRfc3339 } from "../timestamps";
import { rfc3339OrNull } from "./common";
import { instantAttribute } from "./filter";

const tagsAttr = list("computed", "The object's tags.", "string");

const compute = {
  id: int("computed", "The instance's id."),
  label: string("computed", "The instance's label."),
  region: string("computed", "The instance's region."),
  type: string("computed", "The instance's plan type."),
  status: string("computed", "The instance's current state, e.g. running."),
  image: string("computed", "The image it was deployed from; null when none."),
  group: string("computed", "Deprecated group label."),
  hypervisor: string("computed", "Always kvm."),
  host_uuid: string("computed", "The host machine."),
  has_user_data: bool("computed", "Whether it was provisioned with user data."),
  watchdog_enabled: bool("computed", "Whether the shutdown watchdog reboots it after an unexpected power-off."),
  ipv4: list("computed", "Its IPv4 addresses: one public, optionally one private.", "string"),
  ipv6: string("computed", "Its SLAAC IPv6 address; null when none."),
  tags: tagsAttr,
  created: instantAttribute("When it was created."),
  updated: instantAttribute("When it last changed."),
  alerts: object("computed", "Alert thresholds; 0 disables an alert.", {
    cpu: int("computed", "Average CPU percentage over two hours (each core counts 100)."),
    io: int("computed", "Average disk operations per second over two hours."),
    network_in: int("computed", "Average inbound Mbit/s over two hours."),
    network_out: int("computed", "Average outbound Mbit/s over two hours."),
    transfer_quota: int("computed", "Percentage of the transfer quota used."),
  }),
  backups: object("computed", "Backup service settings.", {
    available: bool("computed", "Whether backups are available to it."),
    enabled: bool("computed", "Whether backups are enabled."),
    last_successful: instantAttribute("When the last backup succeeded", true),
    schedule: object("computed", "When backups run.", {
      day: string("computed", "Weekly backup day, or Scheduling; null when not set."),
      window: string("computed", "Two-hour UTC window (W0..W22), or Scheduling; null when not set."),
    }),
  }),
  specs: object("computed", "Its resources.", {
    disk: int("computed", "Disk, MB."),
    memory: int("computed", "Memory, MB."),
    vcpus: int("computed", "Virtual CPUs."),
    gpus: int("computed", "GPUs."),
    transfer: int("computed", "Monthly transfer allotment."),
  }),
};

const domain = {
  id: int("computed", "The domain's id."),
  domain: string("computed", "The domain name."),
  type: string("computed", "master or slave."),
  status: string("computed", "active or disabled."),
  description: string("computed", "Description."),
  group: string("computed", "Deprecated group label."),
  soa_email: string("computed", "Start-of-authority email (master domains)."),
  ttl_sec: int("computed", "Default TTL, seconds."),
  refresh_sec: int("computed", "SOA refresh, seconds."),
  retry_sec: int("computed", "SOA retry, seconds."),
  expire_sec: int("computed", "SOA expire, seconds."),
  axfr_ips: list("computed", "Addresses allowed to transfer the zone.", "string"),
  master_ips: list("computed", "Masters of a slave domain.", "string"),
  tags: tagsAttr,
};

const volume = {
  id: int("computed", "The volume's id."),
  label: string("computed", "The volume's label."),
  region: string("computed", "The volume's region."),
  size: int("computed", "Size, GiB."),
  status: string("computed", "creating, active or resizing."),
  hardware_type: string("computed", "hdd or nvme."),
  filesystem_path: string("computed", "Device path on the attached instance."),
  compute_id: int("computed", "The instance it is attached to; null when detached."),
  compute_label: string("computed", "Label of the instance it is attached to; null when detached."),
  tags: tagsAttr,
  created: instantAttribute("When it was created."),
  updated: instantAttribute("When it last changed."),
};

const nodebalancer = {
  id: int("computed", "The NodeBalancer's id."),
  label: string("computed", "The NodeBalancer's label."),
  region: string("computed", "The NodeBalancer's region."),
  host: string("computed", "Its hostname."),
  ipv4: string("computed", "Its IPv4 address."),
  ipv6: string("computed", "Its IPv6 address; null when none."),
  client_conn_throttle: int("computed", "New connections per second allowed per client IP (0: no throttle)."),
  transfer: object("computed", "Transfer this month, MB (null when unknown).", {
    in: number("computed", "Inbound, MB."),
    out: number("computed", "Outbound, MB."),
    total: number("computed", "Total, MB."),
  }),
  tags: tagsAttr,
  created: instantAttribute("When it was created."),
  updated: instantAttribute("When it last changed."),
};

const group = (what: string, attrs: Record<string, AttributeSpec>) =>
  list("computed", `The ${what} carrying the tag.`, object("computed", `One of the ${what}.`, attrs));

export const tagDataSource = defineDataSource<ProviderContext>()({
  typeName: "mgmt_tag",
  description: "The objects carrying one tag, grouped by type (unrestricted users only).",
  attributes: {
    id: string("computed", "The tag's label."),
    label: string("required", "The tag's label.", { validate: (v) => (v === "" ? "must not be empty" : undefined) }),
    computes: group("compute instances", compute),
    domains: group("domains", domain),
    volumes: group("volumes", volume),
    nodebalancers: group("NodeBalancers", nodebalancer),
  },
  async read({ ctx, signal }, config) {
    const label = config.label;
    const objects = await listAll(ctx.client.listTaggedObjects(label, { signal }));
    const groups: Record<"computes" | "domains" | "volumes" | "nodebalancers", ObjectValue[]> = { computes: [], domains: [], volumes: [], nodebalancers: [] };
    for (const o of objects) {
      if (o.type === "compute") groups.computes.push(computeValue(o.data));
      else if (o.type === "domain") groups.domains.push(domainValue(o.data));
      else if (o.type === "volume") groups.volumes.push(volumeValue(o.data));
      else groups.nodebalancers.push(nodebalancerValue(o.data));
    }
    return { id: label, label, ...groups };
  },
});

const computeValue = (c: ComputeInstance): ObjectValue => ({
  id: c.id,
  label: c.label,
  region: c.region,
  type: c.type,
  status: c.status,
  image: c.image,
  group: c.group,
  hypervisor: c.hypervisor,
  host_uuid: c.host_uuid,
  has_user_data: c.has_user_data,
  watchdog_enabled: c.watchdog_enabled,
  ipv4: [...c.ipv4],
  ipv6: c.ipv6,
  tags: [...c.tags],
  created: toRfc3339(c.created),
  updated: toRfc3339(c.updated),
  alerts: { ...c.alerts },
  backups: {
    available: c.backups.available,
    enabled: c.backups.enabled,
    last_successful: rfc3339OrNull(c.backups.last_successful),
    schedule: { day: c.backups.schedule.day, window: c.backups.schedule.window },
  },
  specs: { ...c.specs },
});

const domainValue = (d: DomainZone): ObjectValue => ({
  id: d.id,
  domain: d.domain,
  type: d.type,
  status: d.status,
  description: d.description,
  group: d.group,
  soa_email: d.soa_email,
  ttl_sec: d.ttl_sec,
  refresh_sec: d.refresh_sec,
  retry_sec: d.retry_sec,
  expire_sec: d.expire_sec,
  axfr_ips: [...d.axfr_ips],
  master_ips: [...d.master_ips],
  tags: [...d.tags],
});

const volumeValue = (v: Volume): ObjectValue => ({
  id: v.id,
  label: v.label,
  region: v.region,
  size: v.size,
  status: v.status,
  hardware_type: v.hardware_type,
  filesystem_path: v.filesystem_path,
  compute_id: v.compute_id,
  compute_label: v.compute_label,
  tags: [...v.tags],
  created: toRfc3339(v.created),
  updated: toRfc3339(v.updated),
});

const nodebalancerValue = (n: NodeBalancer): ObjectValue => ({
  id: n.id,
  label: n.label,
  region: n.region,
  host: n.host,
  ipv4: n.ipv4,
  ipv6: n.ipv6,
  client_conn_throttle: n.client_conn_throttle,
  transfer: { in: n.transfer.in, out: n.transfer.out, total: n.transfer.total },
  tags: [...n.tags],
  created: toRfc3339(n.created),
  updated: toRfc3339(n.updated),
});
