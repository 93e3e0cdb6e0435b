/** Subjects for the pure tests: a resource as the rules see it, values given, nothing sensitive unless named. */
import type { ResourceType, Subject, Value } from "../../src/policy/rules";

export function subject(type: ResourceType, values: Record<string, Value>, opts: { address?: string; sensitive?: string[]; aliases?: string[] } = {}): Subject {
  return {
    address: opts.address ?? `${type}.x`,
    type,
    values,
    sensitive: new Set(opts.sensitive ?? []),
    ...(opts.aliases ? { aliases: opts.aliases } : {}),
  };
}

export const token = (values: Record<string, Value>, opts?: Parameters<typeof subject>[2]) =>
  subject("mgmt_token", { label: "team-ci deploy", scopes: "account:read_only", expires_in: "720h", renew_before: "168h", expiry: null, ...values }, opts);
export const client = (values: Record<string, Value>, opts?: Parameters<typeof subject>[2]) =>
  subject("mgmt_oauth_client", { label: "team-web dashboard", redirect_uri: "https://app.example.com/cb", public: false, ...values }, opts);
export const key = (sshKey: Value, opts?: Parameters<typeof subject>[2]) => subject("mgmt_ssh_key", { label: "laptop", ssh_key: sshKey }, opts);
