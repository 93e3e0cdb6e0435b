/**
 * Account objects the API reads but cannot create: compute instances, domains, volumes and
 * load balancers (NodeBalancers). Tags apply to them and entity transfers move compute
 * instances. `seed*` functions are for fixtures, the admin namespace and tests; they fill
 * every field the contract shows with a plausible default.
 */
import type { ComputeInstance, DomainZone, NodeBalancer, TaggedObject, Volume } from "../../../contract";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { ObjectKind, ObjectRecord, TagRepos } from "./store";

type Repos = TagRepos & Pick<ProfileRepos, "users"> & EventRepos;
type Store = StoreOf<Repos>;
import { wireNow, type Deps } from "../../domain/context";

interface Common {
  /** Default: the account of the first (bootstrap) user. */
  accountId?: number;
  /** Tag labels; missing tags are created on the account. */
  tags?: string[];
}
export type SeedCompute = Common & { label: string } & Partial<Omit<ComputeInstance, "id" | "label" | "tags" | "created" | "updated">>;
export type SeedDomain = Common & { domain: string } & Partial<Omit<DomainZone, "id" | "domain" | "tags">>;
export type SeedVolume = Common & { label: string } & Partial<Omit<Volume, "id" | "label" | "tags" | "created" | "updated">>;
export type SeedNodeBalancer = Common & { label: string } & Partial<Omit<NodeBalancer, "id" | "label" | "tags" | "created" | "updated">>;

const strip = <T extends object>(input: T): Omit<T, "accountId" | "tags"> => {
  const { accountId: _a, tags: _t, ...rest } = input as T & Common;
  return rest as Omit<T, "accountId" | "tags">;
};

/** The wire object of a record, with its tags. */
export function objectView(o: ObjectRecord, tags: string[]): TaggedObject {
  const base = { ...o.body, id: o.id, tags };
  switch (o.kind) {
    case "compute":
      return { type: "compute", data: { ...base, label: o.label, created: o.created, updated: o.updated } as ComputeInstance };
    case "domain":
      return { type: "domain", data: { ...base, domain: o.label } as DomainZone };
    case "volume":
      return { type: "volume", data: { ...base, label: o.label, created: o.created, updated: o.updated } as Volume };
    case "nodebalancer":
      return { type: "nodebalancer", data: { ...base, label: o.label, created: o.created, updated: o.updated } as NodeBalancer };
  }
}

export class ObjectService {
  constructor(private readonly deps: Deps<Repos>) {}

  private async insert(kind: ObjectKind, label: string, common: Common, body: Record<string, unknown>): Promise<ObjectRecord> {
    const { store, clock } = this.deps;
    return store.transaction(async (tx) => {
      const accountId = common.accountId ?? (await tx.users.first())?.account_id;
      if (accountId === undefined) throw new Error("no account to add the object to");
      const now = wireNow(clock);
      const record = await tx.objects.insert({ kind, account_id: accountId, label, created: now, updated: now, body });
      for (const tag of new Set(common.tags ?? [])) {
        const existing = (await tx.tags.get(accountId, tag)) ?? (await tx.tags.insert({ account_id: accountId, label: tag, created: now }));
        await tx.tags.link(existing.id, kind, record.id);
      }
      return record;
    });
  }

  seedCompute(input: SeedCompute): Promise<ObjectRecord> {
    const { secrets } = this.deps;
    const n = parseInt(secrets.hex(2), 16);
    const vcpus = input.specs?.vcpus ?? 1;
    const body: Omit<ComputeInstance, "id" | "label" | "tags" | "created" | "updated"> = {
      alerts: { cpu: 90 * vcpus, io: 10000, network_in: 10, network_out: 10, transfer_quota: 80 },
      backups: { available: false, enabled: false, last_successful: null, schedule: { day: null, window: null } },
      group: "",
      has_user_data: false,
      host_uuid: secrets.uuid(),
      hypervisor: "kvm",
      image: "vendor/debian12",
      ipv4: [`192.0.2.${(n % 253) + 1}`],
      ipv6: `2001:db8::${n.toString(16)}/128`,
      region: "us-east",
      specs: { disk: 25600, gpus: 0, memory: 1024, transfer: 1000, vcpus },
      status: "running",
      type: "g6-nanode-1",
      watchdog_enabled: true,
      ...strip(input),
    };
    delete (body as Record<string, unknown>).label;
    return this.insert("compute", input.label, input, body);
  }

  seedDomain(input: SeedDomain): Promise<ObjectRecord> {
    const body: Omit<DomainZone, "id" | "domain" | "tags"> = {
      axfr_ips: [],
      description: "",
      expire_sec: 0,
      group: "",
      master_ips: [],
      refresh_sec: 0,
      retry_sec: 0,
      soa_email: `hostmaster@${input.domain}`,
      status: "active",
      ttl_sec: 0,
      type: "master",
      ...strip(input),
    };
    delete (body as Record<string, unknown>).domain;
    return this.insert("domain", input.domain, input, body);
  }

  async seedVolume(input: SeedVolume): Promise<ObjectRecord> {
    let computeLabel: string | null = input.compute_label ?? null;
    if (input.compute_id != null && computeLabel === null) computeLabel = (await this.deps.store.objects.get("compute", input.compute_id))?.label ?? null;
    const body: Omit<Volume, "id" | "label" | "tags" | "created" | "updated"> = {
      compute_id: null,
      filesystem_path: `/dev/disk/by-id/scsi-0Vendor_Volume_${input.label}`,
      hardware_type: "nvme",
      region: "us-east",
      size: 20,
      status: "active",
      ...strip(input),
      compute_label: computeLabel,
    };
    delete (body as Record<string, unknown>).label;
    return this.insert("volume", input.label, input, body);
  }

  seedNodeBalancer(input: SeedNodeBalancer): Promise<ObjectRecord> {
    const n = parseInt(this.deps.secrets.hex(2), 16);
    const ipv4 = input.ipv4 ?? `198.51.100.${(n % 253) + 1}`;
    const body: Omit<NodeBalancer, "id" | "label" | "tags" | "created" | "updated"> = {
      client_conn_throttle: 0,
      host: `nb-${ipv4.replace(/\./g, "-")}.nodebalancer.example.com`,
      ipv4,
      ipv6: null,
      region: "us-east",
      transfer: { in: null, out: null, total: null },
      ...strip(input),
    };
    delete (body as Record<string, unknown>).label;
    return this.insert("nodebalancer", input.label, input, body);
  }

  /** Views of records, with their tags (one query per kind). */
  async views(records: ObjectRecord[], store: Store = this.deps.store): Promise<TaggedObject[]> {
    const tags = new Map<ObjectKind, Map<number, string[]>>();
    for (const kind of new Set(records.map((r) => r.kind))) {
      tags.set(
        kind,
        await store.objects.tagsOf(
          kind,
          records.filter((r) => r.kind === kind).map((r) => r.id),
        ),
      );
    }
    return records.map((r) => objectView(r, tags.get(r.kind)?.get(r.id) ?? []));
  }
}
