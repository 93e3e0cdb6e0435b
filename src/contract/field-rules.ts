/**
 * The contract's rules for single values, as plain functions answering a reason (or undefined
 * when the value obeys). The request schemas the server enforces are built from them (`ruled`
 * in ./common.ts) and the provider's plan-time validators are them, so a rule is written once;
 * and the engines' validation starts check a configuration without loading zod.
 * Lengths are characters (Unicode code points), as upstream counts them; see `characterCount`.
 */
import { CA_PROVINCE_CODES, US_STATE_CODES, type AccountContactField } from "./enums";
import { parseSshPublicKey, privateKeyKind, privateKeyReason } from "./sshkey-format";
import { Scopes } from "./scopes";

export type FieldRule = (text: string) => string | undefined;

/** The first reason any of the rules gives. */
const allOf =
  (...rules: FieldRule[]): FieldRule =>
  (text) => {
    for (const rule of rules) {
      const reason = rule(text);
      if (reason !== undefined) return reason;
    }
    return undefined;
  };
/**
 * Lengths count characters (Unicode code points), as the messages say and upstream counts: an
 * emoji is one, though it is two UTF-16 units in `text.length`.
 */
export const characterCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};
export const lengthBetween =
  (min: number, max: number): FieldRule =>
  (text) => {
    const n = characterCount(text);
    return n < min || n > max ? `Length must be between ${min} and ${max} characters.` : undefined;
  };
const lengthAtMost =
  (max: number): FieldRule =>
  (text) =>
    characterCount(text) > max ? `Length must be ${max} characters or less.` : undefined;
const pattern =
  (re: RegExp, reason: string): FieldRule =>
  (text) =>
    re.test(text) ? undefined : reason;

/** Path ids are positive integers (at most 16 digits); anything else is simply not found. */
export const PATH_ID_PATTERN = /^[1-9]\d{0,15}$/;

// Profile and account.

/** Dot-separated atoms, `@`, and a domain of at least two labels ending in letters. */
const EMAIL_PATTERN = /^[\w'+-]+(?:\.[\w'+-]+)*@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
export const EMAIL_MAX = 128;
const emailAtMost = (max: number): FieldRule => allOf(pattern(EMAIL_PATTERN, "Must be a valid email address"), lengthAtMost(max));
export const email: FieldRule = emailAtMost(EMAIL_MAX);

/** Whether `name` is a time zone the runtime knows (IANA names, plus `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name === "" || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
export const timeZone: FieldRule = (text) => (isTimeZone(text) ? undefined : "Must be a valid time zone such as UTC or America/New_York");

/** The contract's field lengths for `PUT /account`. */
export const ACCOUNT_FIELD_MAX = {
  address_1: 64,
  address_2: 64,
  city: 24,
  company: 128,
  email: 128,
  first_name: 50,
  last_name: 50,
  phone: 32,
  state: 24,
  tax_id: 25,
} as const;
/** Not shown by the contract; a cap so a zip stays a zip. */
export const ZIP_MAX = 16;
/** US zip: five digits, optionally `-` and four more (ZIP+4). */
export const US_ZIP_PATTERN = /^\d{5}(-\d{4})?$/;

/** Each contact field alone; rules across fields (zip and state against the country) are the server's. */
export const ACCOUNT_CONTACT_RULES: Record<AccountContactField, FieldRule> = {
  address_1: lengthAtMost(ACCOUNT_FIELD_MAX.address_1),
  address_2: lengthAtMost(ACCOUNT_FIELD_MAX.address_2),
  city: lengthAtMost(ACCOUNT_FIELD_MAX.city),
  company: lengthAtMost(ACCOUNT_FIELD_MAX.company),
  country: pattern(/^[A-Za-z]{2}$/, "country must be a two-letter ISO 3166 code"),
  email: emailAtMost(ACCOUNT_FIELD_MAX.email),
  first_name: lengthAtMost(ACCOUNT_FIELD_MAX.first_name),
  last_name: lengthAtMost(ACCOUNT_FIELD_MAX.last_name),
  phone: lengthAtMost(ACCOUNT_FIELD_MAX.phone),
  state: lengthAtMost(ACCOUNT_FIELD_MAX.state),
  tax_id: lengthAtMost(ACCOUNT_FIELD_MAX.tax_id),
  zip: lengthAtMost(ZIP_MAX),
};

/** A rule across contact fields broken: the field to name and the API's words. */
export interface AddressProblem {
  readonly field: "zip" | "state";
  readonly reason: string;
}

/**
 * The API's rule across contact fields: with country US the zip is a US zip, and with US or CA
 * the state a two-letter code (any case). The server applies it to the account an update would
 * leave, the provider to a configuration that says the country; a field left undefined is not checked.
 */
export function addressProblems(a: { readonly country: string | undefined; readonly zip?: string; readonly state?: string }): AddressProblem[] {
  const country = a.country?.toUpperCase();
  const out: AddressProblem[] = [];
  if (country === "US" && a.zip !== undefined && !US_ZIP_PATTERN.test(a.zip))
    out.push({ field: "zip", reason: "zip must be a valid US zip code (12345 or 12345-6789)" });
  const codes: readonly string[] | undefined = country === "US" ? US_STATE_CODES : country === "CA" ? CA_PROVINCE_CODES : undefined;
  if (codes !== undefined && a.state !== undefined && !codes.includes(a.state.toUpperCase())) {
    out.push({
      field: "state",
      reason:
        country === "US"
          ? "state must be a two-letter US state code (AA, AE or AP for military addresses)"
          : "state must be a two-letter Canadian province code",
    });
  }
  return out;
}

/** A child account's euuid as a path segment takes it (the operator assigns them; upstream's are upper-case UUIDs). */
export const childAccountEuuid: FieldRule = (text) =>
  /^[^\s/]+$/.test(text) ? undefined : `must be a child account euuid, without spaces or slashes; got "${text}"`;

// SSH keys and tokens.

export const SSH_KEY_LABEL_MAX = 64;
export const sshKeyLabel: FieldRule = lengthAtMost(SSH_KEY_LABEL_MAX);
export const sshPublicKeyText: FieldRule = (text) => {
  const parsed = parseSshPublicKey(text);
  return parsed.ok ? undefined : parsed.reason;
};

/**
 * The text of a bearer token (RFC 6750 `b64token`): the characters A-Z a-z 0-9 . _ ~ + / -, then
 * optional `=` padding, 1 to 256 in all. The server authenticates by it, mints only such values
 * and refuses others where an operator or a fixture fixes one (MGMT_SERVE_TOKEN, MGMT_ADMIN_TOKEN,
 * a fixture's `token`).
 */
export const BEARER_TOKEN_MAX_LENGTH = 256;
const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;
export const isBearerTokenText = (text: string): boolean => text.length <= BEARER_TOKEN_MAX_LENGTH && BEARER_TOKEN_PATTERN.test(text);
/** What a bearer token's text must be, as a reason's predicate ("MGMT_ADMIN_TOKEN must be ..."). */
export const BEARER_TOKEN_TEXT = "must be 1 to 256 of the characters A-Z a-z 0-9 . _ ~ + / - (then optional =)";
export const bearerTokenText: FieldRule = (text) => (isBearerTokenText(text) ? undefined : `A token ${BEARER_TOKEN_TEXT}.`);

/**
 * How the API mints personal access tokens and OAuth client secrets: 64 lowercase hex characters
 * (32 random bytes). Recognised only as the whole value (with an optional `Bearer `), and only
 * with both digits and letters, as 32 random bytes practically always have: a name never looks so.
 */
export const MINTED_SECRET = /[0-9a-f]{64}/;
const WHOLE_MINTED_SECRET = new RegExp(`^(?:Bearer\\s+)?${MINTED_SECRET.source}$`);
const looksMinted = (text: string): boolean => {
  const t = text.trim();
  return WHOLE_MINTED_SECRET.test(t) && /[0-9]/.test(t.slice(-64)) && /[a-f]/.test(t.slice(-64));
};

/**
 * A reason when `text` is a secret typed where a name goes (a private key, a token or client
 * secret as the API mints them), else undefined. The reason never quotes the text.
 */
export const secretInName: FieldRule = (text) => {
  const kind = privateKeyKind(text);
  if (kind !== undefined) return privateKeyReason(kind);
  if (looksMinted(text)) {
    return (
      "this looks like an API token or OAuth client secret (64 hexadecimal characters, the form the API issues them in), " +
      "and a name is shown in plans, state and the API's lists: use a name. If it is a live token, revoke it"
    );
  }
  return undefined;
};

/** A reason when `text` is a private key (or other secret a public key field must not take). */
export const secretInPublicKey: FieldRule = (text) => {
  const kind = privateKeyKind(text);
  return kind === undefined ? undefined : privateKeyReason(kind);
};

export const TOKEN_LABEL = { min: 1, max: 100 } as const;
export const tokenLabel: FieldRule = lengthBetween(TOKEN_LABEL.min, TOKEN_LABEL.max);

/** OAuth scope text: `*`, or space-separated `<area>:<access>` items; `*` stands alone (the grammar is `Scopes.parse`). */
export const oauthScopesText: FieldRule = (text) => {
  const parsed = Scopes.parse(text);
  return parsed.ok ? undefined : parsed.reason;
};

// OAuth clients.

/** The fields an OAuth client's create and update bodies carry, without zod (test/provider/cross-layer.test.ts ties them to the shapes). */
export const OAUTH_CLIENT_WRITABLE = ["label", "public", "redirect_uri"] as const;
/** What the API makes of a create body's optional fields when they are left out (not shown by the contract: upstream's). */
export const OAUTH_CLIENT_CREATE_DEFAULTS = { public: false } as const;
export const OAUTH_CLIENT_LABEL_MAX = 512;
export const oauthClientLabel: FieldRule = lengthBetween(1, OAUTH_CLIENT_LABEL_MAX);

/** Longest accepted `redirect_uri` (the contract gives none). */
export const REDIRECT_URI_MAX = 2000;
/** An absolute `http` or `https` URL. */
export const redirectUri: FieldRule = allOf(lengthAtMost(REDIRECT_URI_MAX), (text) => {
  try {
    const url = new URL(text);
    if ((url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "") return undefined;
  } catch {
    // not a URL at all: the same reason
  }
  return "redirect_uri must be an absolute http or https URL";
});

/** Image types a thumbnail may have, with the leading bytes that identify each. */
export const THUMBNAIL_TYPES = ["image/png", "image/jpeg", "image/gif"] as const;
export type ThumbnailType = (typeof THUMBNAIL_TYPES)[number];
/** Largest accepted thumbnail, in bytes (the contract gives none). */
export const THUMBNAIL_MAX_BYTES = 256 * 1024;

/** The image type the bytes are, judged by their magic numbers; null when none. */
export function sniffImage(bytes: Uint8Array): ThumbnailType | null {
  const starts = (...sig: number[]) => bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || starts(0x47, 0x49, 0x46, 0x38, 0x39, 0x61)) return "image/gif";
  return null;
}

// Tags.

export const TAG_LABEL = { min: 3, max: 50 } as const;
export const tagLabel: FieldRule = lengthBetween(TAG_LABEL.min, TAG_LABEL.max);

// The objects tags apply to. The API cannot create them (fixtures seed them), but their limits are
// the contract's all the same: a fixture that breaks one is refused as the API would refuse the object.

/** A compute instance's label: 3..64 characters, letters and digits at the ends, no two separators in a row. */
export const computeLabel: FieldRule = allOf(
  lengthBetween(3, 64),
  pattern(/^[A-Za-z0-9](?:[A-Za-z0-9]|[-_.](?![-_.]))*[A-Za-z0-9]$/, "Must begin and end with a letter or digit, without two of -_. in a row."),
);
export const volumeLabel: FieldRule = lengthBetween(1, 32);
export const nodeBalancerLabel: FieldRule = lengthBetween(3, 32);
export const domainName: FieldRule = lengthBetween(1, 253);
/** Empty for none (the API's default); otherwise 1..50 and 1..253 characters. */
export const domainGroup: FieldRule = lengthAtMost(50);
export const domainDescription: FieldRule = lengthAtMost(253);
/** A NodeBalancer's connections per second from one client; 0 disables throttling. */
export const CLIENT_CONN_THROTTLE = { min: 0, max: 20 } as const;
