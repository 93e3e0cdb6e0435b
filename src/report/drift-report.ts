/**
 * The drift report: managed objects whose live state left the recorded one (or vanished), and, when
 * asked, live objects no state holds. Markdown for an issue body, JSON for machines.
 */
import { driftEntryJson, REPORT_FORMAT_VERSION } from "./json";
import { Spending, leftOut, type Budget } from "./truncate";
import { code, count, entryLines, fold, plain } from "./md";
import type { ResourceEntry } from "./summary";
import { constructIds } from "./import-cdktf";
import { bindingNames } from "./import-names";
import type { UnmanagedObject, UnmanagedResult } from "./unmanaged";
import type { EventLookup, Explanation } from "./drift-events";
import { ciTokenCallout, type CiTokenStatus } from "./ci-token";

/**
 * A cdktf stack's naming: the report then suggests what `--import-out FILE.ts` writes (construct ids
 * and classes, the same function computing them from the same objects) instead of HCL import blocks.
 */
export interface CdktfNaming {
  /** The provider's local name, the prefix of its resource types ("mgmt"). */
  readonly provider: string;
  /** Resource names the stack's state already has, which construct ids avoid, as the module's do. */
  readonly taken: readonly string[];
}

export interface DriftReport {
  readonly drift: readonly ResourceEntry[];
  /** Absent when `--unmanaged` was not asked for. */
  readonly unmanaged?: UnmanagedResult;
  /** Present for a cdktf stack. */
  readonly cdktf?: CdktfNaming;
  /** Who did it: the account events explaining each drift entry (by address) and unmanaged object (by `unmanagedKey`); absent when not looked up. */
  readonly events?: EventLookup;
  /** The token this run acts with, when the API listed it. */
  readonly ciToken?: CiTokenStatus;
}

/** The key of an unmanaged object among the explanations. */
export const unmanagedKey = (o: { type: string; importId: string }) => `${o.type} ${o.importId}`;

/** The explanation of `key`: the event, null for none, undefined when not looked up. */
function explanationOf(r: DriftReport, key: string): Explanation | null | undefined {
  if (r.events === undefined || !("explained" in r.events)) return undefined;
  return r.events.explained.get(key);
}

/** The markdown of who did it, inside an entry's parentheses. */
function whoText(e: Explanation | null | undefined): string | undefined {
  if (e === undefined) return undefined;
  if (e === null) return "no account event explains it";
  const who = e.username === null ? "by the system" : `by ${code(e.username)}`;
  return `${who}, ${e.when.replace("T", " ")} UTC (${code(e.action)}, event ${e.event_id})`;
}

/** The resource type whose unmanaged objects are live credentials, called out before everything else. */
export const TOKEN_TYPE = "mgmt_token";

/** How the generated TypeScript names an unmanaged object: its construct id, the construct's class, and the address that gives. */
export interface CdktfName {
  readonly id: string;
  /** `sshKey.SshKey`: the namespace and class as the bindings export them. */
  readonly construct: string;
  readonly address: string;
}

/** Each unmanaged object's cdktf name, in the order `mgmt drift --import-out FILE.ts` writes them. */
export function cdktfNames(objects: readonly UnmanagedObject[], naming: CdktfNaming): CdktfName[] {
  const ids = constructIds(objects, naming.provider, naming.taken);
  return objects.map((o, i) => {
    const names = bindingNames(o.type, naming.provider);
    return { id: ids[i]!, construct: `${names.namespace}.${names.className}`, address: `${o.type}.${ids[i]!}` };
  });
}

/** The revoking API call for an unmanaged token. */
export const revokeCall = (id: string) => `DELETE /profile/tokens/${id}`;

export const isDeleted = (e: ResourceEntry) => e.actions.includes("delete") && !e.actions.includes("create");

export function driftFound(r: DriftReport): boolean {
  return r.drift.length > 0 || (r.unmanaged?.unmanaged.length ?? 0) > 0;
}

export function driftCounts(r: DriftReport) {
  const deleted = r.drift.filter(isDeleted).length;
  return { drifted: r.drift.length - deleted, deleted, unmanaged: r.unmanaged?.unmanaged.length ?? 0 };
}

export function driftSummaryLine(r: DriftReport): string {
  const c = driftCounts(r);
  if (!driftFound(r)) return r.unmanaged ? "**No drift** and no unmanaged objects." : "**No drift.**";
  const parts = [`${count(c.drifted)} changed outside of Terraform`, `${count(c.deleted)} deleted outside of Terraform`];
  const tokens = unmanagedTokens(r).length;
  if (r.unmanaged) parts.push(`${count(c.unmanaged)} unmanaged${tokens ? ` (${count(tokens)} of them ${tokens === 1 ? "a token" : "tokens"})` : ""}`);
  return `**${parts.join(", ")}**`;
}

export const unmanagedTokens = (r: DriftReport): readonly UnmanagedObject[] => r.unmanaged?.unmanaged.filter((o) => o.type === TOKEN_TYPE) ?? [];

/**
 * Unmanaged tokens first, in the open: each is a live credential (whoever holds it acts as its user
 * until it expires), which the other unmanaged objects are not. Every one is listed, whatever the
 * budget, with the call that revokes it and the way through the provider.
 */
function tokenCallout(r: DriftReport): string[] {
  const tokens = unmanagedTokens(r);
  if (tokens.length === 0) return [];
  const n = tokens.length;
  const lines = [
    "> [!CAUTION]",
    `> **${count(n)} personal access ${n === 1 ? "token" : "tokens"} no state manages: live ${n === 1 ? "credential" : "credentials"}.** ` +
      "Whoever holds one acts as its user, with its scopes, until it expires. Revoke each one nobody needs:",
    ">",
    ...tokens.map((t) => `> - id ${code(t.importId)} ${code(JSON.stringify(t.label))}: ${code(revokeCall(t.importId))}`),
    ">",
    `> With curl: ${code(`curl -X DELETE -H "Authorization: Bearer $MGMT_TOKEN" "$MGMT_URL/profile/tokens/ID"`)}. ` +
      `Or through the provider: adopt it as below, apply, then remove it from the ${r.cdktf ? "stack" : "configuration"}; the next apply deletes the ${code(TOKEN_TYPE)}, which revokes it.`,
    "",
  ];
  return lines;
}

const ROLE_TEXT = { bootstrap: "the token `mgmt serve` minted at start", acting: "the token this run acts with" } as const;

export function driftLineCount(r: DriftReport): number {
  return r.drift.length + (r.unmanaged?.unmanaged.length ?? 0);
}

export function renderDriftMarkdown(r: DriftReport, budget: Budget, title = "Drift report", truncationNote?: string): string {
  const out = [`## ${plain(title)}`, "", driftSummaryLine(r), ""];
  const u = r.unmanaged;
  const names = new Map<UnmanagedObject, CdktfName>();
  if (u && r.cdktf) cdktfNames(u.unmanaged, r.cdktf).forEach((n, i) => names.set(u.unmanaged[i]!, n));
  out.push(...ciTokenCallout(r.ciToken));
  out.push(...tokenCallout(r));
  if (r.events !== undefined && "unavailable" in r.events && (r.drift.length > 0 || (u?.unmanaged.length ?? 0) > 0))
    out.push("> [!NOTE]", `> Who made these changes is not known: ${plain(r.events.unavailable)}`, "");
  if (truncationNote) out.push("> [!NOTE]", `> ${truncationNote}`, "");
  const spend = new Spending(budget);
  const changed = r.drift.filter((e) => !isDeleted(e));
  const deleted = r.drift.filter(isDeleted);
  const section = (heading: string, entries: readonly ResourceEntry[]) => {
    if (!entries.length) return;
    out.push(
      ...fold(
        `${heading} (${count(entries.length)})`,
        spend.section(entries, (e) => {
          const note = whoText(explanationOf(r, e.address));
          return entryLines(e, { details: spend.details(), ...(note ? { note } : {}) });
        }),
        true,
      ),
    );
  };
  section("Changed outside of Terraform, state → live", changed);
  section("Deleted outside of Terraform", deleted);
  if (u) {
    const body: string[] = [];
    let hidden = 0;
    for (const type of u.types) {
      const mine = u.unmanaged.filter((o) => o.type === type);
      if (!mine.length) continue;
      body.push(`**${code(type)}**`, "");
      for (const o of mine) {
        if (!spend.line()) {
          hidden++;
          continue;
        }
        const name = names.get(o);
        const as = name ? `${code(name.id)} (${code(`new ${name.construct}(scope, ${JSON.stringify(name.id)}, …)`)})` : code(o.to);
        const explained = explanationOf(r, unmanagedKey(o));
        const who = explained === undefined ? "" : ` (${explained === null ? whoText(null)! : `created ${whoText(explained)!}`})`;
        body.push(`- id ${code(o.importId)} ${code(JSON.stringify(o.label))} → import as ${as}${who}`);
      }
      body.push("");
    }
    if (hidden) body.push(leftOut(hidden), "");
    if (u.unmanaged.length && r.cdktf)
      body.push(
        "`mgmt drift --unmanaged --import-out src/unmanaged.ts` writes a cdktf module declaring these with the bindings' constructs, under the ids above, each `.importFrom(id)`; call `importUnmanaged(this)` in the stack and the next plan imports them.",
      );
    else if (u.unmanaged.length)
      body.push(
        "`mgmt drift --unmanaged --import-out imports.tf` writes `import {}` blocks for these; `plan -generate-config-out=generated.tf` then writes their configuration.",
      );
    else body.push(`None among ${u.types.map((t) => code(t)).join(", ")}.`);
    out.push(...fold(`Not managed by any state (${count(u.unmanaged.length)})`, body, true));
    if (u.known.length) {
      out.push("Expected and not counted:", "");
      for (const k of u.known) out.push(`- ${code(k.type)} id ${code(k.importId)} ${code(JSON.stringify(k.label))}: ${ROLE_TEXT[k.role]}`);
      out.push("");
    }
  }
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}

export interface DriftReportJson {
  format_version: number;
  summary: { drifted: number; deleted: number; unmanaged: number };
  drift: ({ address: string; type: string; actions: string[]; attributes: string[] } & WhoJson)[];
  /** Tokens first. `to` is the address adopting it gives; in a cdktf stack also the construct id and class the module uses; a token also how to revoke it. */
  unmanaged?: ({ type: string; id: string; label: string; to: string; construct_id?: string; construct?: string; revoke?: string } & WhoJson)[];
  known?: { type: string; id: string; label: string; role: string }[];
  /** Who did it, per drift entry and unmanaged object: `who` is the event, null when none explains it. Absent when not looked up; `events_unavailable` then says why, when it was tried. */
  events_unavailable?: string;
  /** The token this run acts with: its state (`ok`, `renewal`, `expiring`, `expired`), never its value. */
  ci_token?: { id: number; label: string; expiry: string | null; state: string; days_left?: number; managed_as?: string; renew_before?: string };
  has_drift: boolean;
}

type WhoJson = { who?: Explanation | null };
const whoJson = (r: DriftReport, key: string): WhoJson => {
  const e = explanationOf(r, key);
  return e === undefined ? {} : { who: e === null ? null : { ...e } };
};

function unmanagedJson(r: DriftReport): NonNullable<DriftReportJson["unmanaged"]> {
  const objects = r.unmanaged?.unmanaged ?? [];
  const names = r.cdktf ? cdktfNames(objects, r.cdktf) : [];
  return objects.map((o, i) => {
    const name = names[i];
    return {
      type: o.type,
      id: o.importId,
      label: o.label,
      to: name ? name.address : o.to,
      ...(name ? { construct_id: name.id, construct: name.construct } : {}),
      ...(o.type === TOKEN_TYPE ? { revoke: revokeCall(o.importId) } : {}),
      ...whoJson(r, unmanagedKey(o)),
    };
  });
}

export function driftReportJson(r: DriftReport): DriftReportJson {
  return {
    format_version: REPORT_FORMAT_VERSION,
    summary: driftCounts(r),
    drift: r.drift.map((e) => ({ ...driftEntryJson(e), ...whoJson(r, e.address) })),
    ...(r.unmanaged
      ? {
          unmanaged: unmanagedJson(r),
          known: r.unmanaged.known.map((k) => ({ type: k.type, id: k.importId, label: k.label, role: k.role })),
        }
      : {}),
    ...(r.events !== undefined && "unavailable" in r.events ? { events_unavailable: r.events.unavailable } : {}),
    ...(r.ciToken
      ? {
          ci_token: {
            id: r.ciToken.id,
            label: r.ciToken.label,
            expiry: r.ciToken.expiry,
            state: r.ciToken.state,
            ...(r.ciToken.daysLeft !== undefined ? { days_left: r.ciToken.daysLeft } : {}),
            ...(r.ciToken.managedAs !== undefined ? { managed_as: r.ciToken.managedAs } : {}),
            ...(r.ciToken.renewBefore !== undefined ? { renew_before: r.ciToken.renewBefore } : {}),
          },
        }
      : {}),
    has_drift: driftFound(r),
  };
}
