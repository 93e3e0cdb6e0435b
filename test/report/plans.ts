/** Hand-built plan JSON in the engines' shape (`show -json PLANFILE`, format 1.x), for the pure report tests. */

export interface RcOptions {
  readonly before?: unknown;
  readonly after?: unknown;
  readonly beforeSensitive?: unknown;
  readonly afterSensitive?: unknown;
  readonly afterUnknown?: unknown;
  readonly replacePaths?: (string | number)[][];
  readonly importing?: { id: string };
  readonly previousAddress?: string;
  readonly actionReason?: string;
  readonly mode?: "managed" | "data";
  readonly deposed?: string;
}

export function rc(address: string, actions: string[], o: RcOptions = {}): Record<string, unknown> {
  const [type, name] = address.replace(/^(module\.[^.]+\.)+/, "").split(".");
  return {
    address,
    mode: o.mode ?? "managed",
    type,
    name,
    provider_name: "registry.mgmt.test/mgmt/mgmt",
    ...(o.previousAddress ? { previous_address: o.previousAddress } : {}),
    ...(o.deposed ? { deposed: o.deposed } : {}),
    change: {
      actions,
      before: o.before ?? null,
      after: o.after ?? null,
      after_unknown: o.afterUnknown ?? {},
      before_sensitive: o.beforeSensitive ?? (o.before ? {} : false),
      after_sensitive: o.afterSensitive ?? (o.after ? {} : false),
      ...(o.replacePaths ? { replace_paths: o.replacePaths } : {}),
      ...(o.importing ? { importing: o.importing } : {}),
    },
    ...(o.actionReason ? { action_reason: o.actionReason } : {}),
  };
}

export function plan(parts: Record<string, unknown> = {}): Record<string, unknown> {
  return { format_version: "1.2", terraform_version: "1.11.4", planned_values: {}, resource_changes: [], ...parts };
}

export const key = (id: number, label: string) => ({ id: String(id), label, ssh_key: `ssh-ed25519 AAAA${id} k@test`, created: "2026-01-01T00:00:00Z" });
