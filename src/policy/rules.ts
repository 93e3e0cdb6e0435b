/**
 * The account's rules, one implementation each, read by the plan check (`mgmt policy check`) and the synth
 * Aspect (`MgmtPolicy`) alike: both hand them a `Subject`, the resource's values as planned or configured.
 * Pure and zod-free: the Aspect ships in the bindings package, which must not carry zod.
 */
import { parseDuration, parseRfc3339 } from "../contract/timestamps";
import { Scopes } from "../contract/scopes";
import { parseSshPublicKey, sshKeyFields } from "../contract/sshkey-format";

export const RULE_IDS = ["token-expiry", "token-scopes", "token-renewal", "oauth-redirect-https", "oauth-public", "ssh-key-strength", "label-pattern"] as const;
export type RuleId = (typeof RULE_IDS)[number];
export const isRuleId = (text: string): text is RuleId => (RULE_IDS as readonly string[]).includes(text);

export type Severity = "error" | "warning";
export type SeveritySetting = Severity | "off";

/** A value the engine (or the CDK) knows only at apply. */
export const UNKNOWN: unique symbol = Symbol("unknown until apply");
export type Value = string | number | boolean | null | typeof UNKNOWN;

export const RESOURCE_TYPES = ["mgmt_token", "mgmt_oauth_client", "mgmt_ssh_key"] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** One resource as the rules see it. `address` is what findings name (a resource address, or a construct path at synth). */
export interface Subject {
  readonly address: string;
  /** Other names a waiver may use for it (at synth: the resource address the plan will show). */
  readonly aliases?: readonly string[];
  readonly type: ResourceType;
  /** Attribute values; an attribute absent here or null is not set. */
  readonly values: Readonly<Record<string, Value>>;
  /** Attributes whose values must never be printed. */
  readonly sensitive: ReadonlySet<string>;
}

/** Each rule's parameters, after validation (durations in milliseconds beside the text the user wrote). */
export interface RuleParams {
  "token-expiry": { readonly max_lifetime: string; readonly maxLifetimeMs: number };
  "token-scopes": { readonly read_only_areas: readonly string[]; readonly allowed_areas: readonly string[] | null };
  "token-renewal": { readonly min_renew_before: string; readonly minRenewBeforeMs: number };
  "oauth-redirect-https": Record<string, never>;
  "oauth-public": Record<string, never>;
  "ssh-key-strength": { readonly min_rsa_bits: number };
  "label-pattern": { readonly pattern: string | null };
}

/** What a rule says of one subject. "unknown": it depends on a value known only at apply. */
export type Outcome =
  { readonly kind: "pass" } | { readonly kind: "violation"; readonly message: string } | { readonly kind: "unknown"; readonly message: string };

export interface RuleContext<P> {
  readonly params: P;
  /** For rules on absolute instants (a token's `expiry`); injected so that tests fix it. */
  readonly now: Date;
}

export interface Rule<Id extends RuleId> {
  readonly id: Id;
  /** One line: why the rule exists. */
  readonly reason: string;
  readonly defaultSeverity: Severity;
  readonly types: readonly ResourceType[];
  check(subject: Subject, ctx: RuleContext<RuleParams[Id]>): Outcome;
}

const PASS: Outcome = { kind: "pass" };
const violation = (message: string): Outcome => ({ kind: "violation", message });
const unknown = (attribute: string): Outcome => ({ kind: "unknown", message: `\`${attribute}\` is known only after apply: not checkable at plan` });

/** A value for a message: quoted, or `(sensitive)`, never the value itself when it is sensitive. */
function shown(subject: Subject, attribute: string): string {
  return subject.sensitive.has(attribute) ? "(sensitive)" : JSON.stringify(subject.values[attribute]);
}
const valueOf = (subject: Subject, attribute: string): Value => subject.values[attribute] ?? null;

const HOUR = 3_600_000;
/** A duration in the largest whole unit that says it (hours, or days when whole). */
function humanDuration(ms: number): string {
  const hours = ms / HOUR;
  return hours >= 24 && Number.isInteger(hours / 24) ? `${hours / 24} days` : `${Number(hours.toFixed(2))} hours`;
}

const tokenExpiry: Rule<"token-expiry"> = {
  id: "token-expiry",
  reason: "A leaked token that never expires works forever: every token expires, within the maximum lifetime.",
  defaultSeverity: "error",
  types: ["mgmt_token"],
  check(subject, { params, now }) {
    const max = `${params.max_lifetime} (${humanDuration(params.maxLifetimeMs)})`;
    const expiresIn = valueOf(subject, "expires_in");
    if (expiresIn === UNKNOWN) return unknown("expires_in");
    if (typeof expiresIn === "string") {
      const ms = parseDuration(expiresIn);
      if (ms === undefined) return violation(`\`expires_in\` ${shown(subject, "expires_in")} is not a duration`);
      return ms > params.maxLifetimeMs ? violation(`\`expires_in\` ${shown(subject, "expires_in")} is longer than the maximum lifetime ${max}`) : PASS;
    }
    const expiry = valueOf(subject, "expiry");
    if (expiry === UNKNOWN) return unknown("expiry");
    if (typeof expiry === "string") {
      const at = parseRfc3339(expiry);
      if (at === undefined) return violation(`\`expiry\` ${shown(subject, "expiry")} is not an RFC 3339 date-time`);
      return at - now.getTime() > params.maxLifetimeMs
        ? violation(`\`expiry\` ${shown(subject, "expiry")} is further away than the maximum lifetime ${max}`)
        : PASS;
    }
    return violation(`the token never expires: set \`expires_in\` (at most ${params.max_lifetime})`);
  },
};

const tokenScopes: Rule<"token-scopes"> = {
  id: "token-scopes",
  reason: "A token holds only the access its job needs: no `*`, no `read_write` on the team's read-only areas.",
  defaultSeverity: "error",
  types: ["mgmt_token"],
  check(subject, { params }) {
    const text = valueOf(subject, "scopes");
    if (text === UNKNOWN) return unknown("scopes");
    if (text === null) return violation("`scopes` is not set, so the token gets the provider token's scopes (often `*`): name the scopes it needs");
    const parsed = Scopes.parse(String(text));
    if (!parsed.ok) return violation(`\`scopes\` ${shown(subject, "scopes")} does not parse: ${parsed.reason}`);
    const { scopes } = parsed;
    if (scopes.isAll) return violation("`scopes` is `*` (every area, read and write): name the areas the token needs");
    const problems: string[] = [];
    const writes = params.read_only_areas.filter((area) => scopes.allows(`${area}:read_write`));
    if (writes.length > 0) problems.push(`\`read_write\` on ${writes.map((a) => `\`${a}\``).join(", ")}, read-only for the team`);
    const allowed = params.allowed_areas;
    const outside = allowed === null ? [] : scopes.namedAreas.filter((area) => !allowed.includes(area));
    if (outside.length > 0) problems.push(`${outside.map((a) => `\`${a}\``).join(", ")} outside the allowed areas (${allowed!.join(", ")})`);
    return problems.length === 0 ? PASS : violation(`\`scopes\` asks for ${problems.join(" and ")}`);
  },
};

const tokenRenewal: Rule<"token-renewal"> = {
  id: "token-renewal",
  reason: "A token with a lifetime is rotated by the scheduled apply only if `renew_before` spans the runs that may be missed.",
  defaultSeverity: "warning",
  types: ["mgmt_token"],
  check(subject, { params }) {
    const expiresIn = valueOf(subject, "expires_in");
    // renew_before works only with expires_in; a token without one is token-expiry's business.
    if (expiresIn === null) return PASS;
    const renew = valueOf(subject, "renew_before");
    if (renew === UNKNOWN) return unknown("renew_before");
    if (renew === null) return violation(`\`renew_before\` is not set: the token lapses instead of being rotated (set at least ${params.min_renew_before})`);
    const renewMs = parseDuration(String(renew));
    if (renewMs === undefined) return violation(`\`renew_before\` ${shown(subject, "renew_before")} is not a duration`);
    if (renewMs < params.minRenewBeforeMs)
      return violation(
        `\`renew_before\` ${shown(subject, "renew_before")} is shorter than ${params.min_renew_before}, the window the CI schedule needs to rotate it`,
      );
    const lifetime = expiresIn === UNKNOWN ? undefined : parseDuration(String(expiresIn));
    if (lifetime !== undefined && renewMs >= lifetime)
      return violation(
        `\`renew_before\` ${shown(subject, "renew_before")} is not shorter than \`expires_in\` ${shown(subject, "expires_in")}: every apply rotates the token`,
      );
    return PASS;
  },
};

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

const oauthRedirectHttps: Rule<"oauth-redirect-https"> = {
  id: "oauth-redirect-https",
  reason: "An authorization code sent over plain http can be read on the way: redirects use https (loopback allowed for public clients).",
  defaultSeverity: "error",
  types: ["mgmt_oauth_client"],
  check(subject) {
    const uri = valueOf(subject, "redirect_uri");
    if (uri === UNKNOWN) return unknown("redirect_uri");
    if (uri === null) return PASS;
    let url: URL;
    try {
      url = new URL(String(uri));
    } catch {
      return violation(`\`redirect_uri\` ${shown(subject, "redirect_uri")} is not a URL`);
    }
    if (url.protocol === "https:") return PASS;
    if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) {
      // A native app's loopback redirect (RFC 8252) never leaves the machine, but only a public client is such an app.
      const isPublic = valueOf(subject, "public");
      if (isPublic === UNKNOWN) return unknown("public");
      if (isPublic === true) return PASS;
      return violation(`\`redirect_uri\` ${shown(subject, "redirect_uri")} is plain http on loopback, allowed only for public clients (native apps)`);
    }
    return violation(`\`redirect_uri\` ${shown(subject, "redirect_uri")} is not https`);
  },
};

const oauthPublic: Rule<"oauth-public"> = {
  id: "oauth-public",
  reason: "A public client cannot keep a secret: anyone can present its id, so each one deserves a reviewer's look.",
  defaultSeverity: "warning",
  types: ["mgmt_oauth_client"],
  check(subject) {
    const isPublic = valueOf(subject, "public");
    if (isPublic === UNKNOWN) return unknown("public");
    return isPublic === true ? violation("the client is public (`public = true`): it has no secret, its id alone starts an authorization") : PASS;
  },
};

const sshKeyStrength: Rule<"ssh-key-strength"> = {
  id: "ssh-key-strength",
  reason: "Weak keys are broken or soon will be: ed25519, ECDSA, or RSA of at least the minimum size.",
  defaultSeverity: "error",
  types: ["mgmt_ssh_key"],
  check(subject, { params }) {
    const text = valueOf(subject, "ssh_key");
    if (text === UNKNOWN) return unknown("ssh_key");
    if (text === null) return PASS;
    const parsed = parseSshPublicKey(String(text));
    if (!parsed.ok) return violation(`\`ssh_key\` does not parse: ${parsed.reason}`);
    const { algorithm } = parsed.key;
    if (algorithm === "ssh-rsa") {
      const modulus = sshKeyFields(parsed.key)[1]!;
      const bits = modulusBits(modulus);
      return bits < params.min_rsa_bits ? violation(`RSA key of ${bits} bits; at least ${params.min_rsa_bits} are required (or use ed25519)`) : PASS;
    }
    if (algorithm.includes("ed25519") || algorithm.includes("ecdsa-sha2-")) return PASS;
    return violation(`\`${algorithm}\` keys are not allowed: use ed25519, ECDSA, or RSA of at least ${params.min_rsa_bits} bits`);
  },
};

/** Bits of an SSH mpint (big-endian, a leading zero byte when the top bit is set). */
export function modulusBits(mpint: Uint8Array): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  if (i === mpint.length) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i]!));
}

const labelPattern: Rule<"label-pattern"> = {
  id: "label-pattern",
  reason: "A label says who owns the credential, so the person who finds it at 3 a.m. knows whom to call.",
  defaultSeverity: "error",
  types: ["mgmt_token", "mgmt_oauth_client"],
  check(subject, { params }) {
    if (params.pattern === null) return PASS;
    const label = valueOf(subject, "label");
    if (label === UNKNOWN) return unknown("label");
    if (label === null) return PASS;
    return new RegExp(params.pattern, "u").test(String(label))
      ? PASS
      : violation(`\`label\` ${shown(subject, "label")} does not match the naming pattern /${params.pattern}/`);
  },
};

/** Every rule, by id: the one table the check, the renderers and the docs read. */
export const RULES: { readonly [Id in RuleId]: Rule<Id> } = {
  "token-expiry": tokenExpiry,
  "token-scopes": tokenScopes,
  "token-renewal": tokenRenewal,
  "oauth-redirect-https": oauthRedirectHttps,
  "oauth-public": oauthPublic,
  "ssh-key-strength": sshKeyStrength,
  "label-pattern": labelPattern,
};
