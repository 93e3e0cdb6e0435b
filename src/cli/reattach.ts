/**
 * TF_REATTACH_PROVIDERS, the engines' way to use a provider that is already running instead of
 * starting one (Terraform's internal/getproviders/reattach, the same in OpenTofu): a JSON object
 * from provider source address to go-plugin's ReattachConfig.
 */

/** go-plugin's ReattachConfig as the engines read it. */
export interface ReattachEntry {
  readonly Protocol: "grpc";
  readonly ProtocolVersion: number;
  readonly Pid: number;
  /**
   * go-plugin's test mode: the engine neither sends Shutdown nor kills the process when it is
   * done with it, so the provider outlives one command and serves the next.
   */
  readonly Test: true;
  readonly Addr: { readonly Network: "unix" | "tcp"; readonly String: string };
}

/** The entry for a provider that printed go-plugin's handshake line `CORE|APP|NETWORK|ADDRESS|grpc`. */
export function reattachEntry(line: string, pid: number): ReattachEntry | { problem: string } {
  const [core, app, network, address, protocol] = line.trim().split("|");
  if (core !== "1" || !app || !/^\d+$/.test(app) || (network !== "unix" && network !== "tcp") || !address || protocol !== "grpc")
    return { problem: `the provider printed '${line.trim()}', not a handshake line` };
  return { Protocol: "grpc", ProtocolVersion: Number(app), Pid: pid, Test: true, Addr: { Network: network, String: address } };
}

/**
 * The variable's new value: what it held (other providers a user attaches), with `source`
 * attached to `entry`. A value that is not a JSON object is a problem to report, not to drop.
 */
export function withReattach(existing: string | undefined, source: string, entry: ReattachEntry): { value: string } | { problem: string } {
  let held: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== "") {
    try {
      held = JSON.parse(existing) as Record<string, unknown>;
    } catch (e) {
      return { problem: `TF_REATTACH_PROVIDERS is set but is not JSON (${e instanceof Error ? e.message : String(e)}); unset it or fix it` };
    }
    if (held === null || typeof held !== "object" || Array.isArray(held))
      return { problem: "TF_REATTACH_PROVIDERS is set but is not a JSON object of provider addresses; unset it or fix it" };
  }
  return { value: JSON.stringify({ ...held, [source]: entry }) };
}
