/** Each rule alone, on subjects built by hand: a violating and a passing case, and what stays unknown at plan. */
import { DEFAULT_CONFIG } from "../../src/policy/config";
import { RULES, RULE_IDS, UNKNOWN, modulusBits, type Outcome, type RuleId, type RuleParams, type Subject } from "../../src/policy/rules";
import { sshKeyText } from "../../testkit/ssh-keys";
import { client, key, token } from "./subjects";

const NOW = new Date("2026-06-01T12:00:00Z");

function check<Id extends RuleId>(id: Id, s: Subject, params: Partial<RuleParams[Id]> = {}): Outcome {
  const rule = RULES[id];
  return rule.check(s, { params: { ...DEFAULT_CONFIG.rules[id].params, ...params }, now: NOW });
}
const kind = (o: Outcome) => o.kind;

const rsaKey = (bits: number) => sshKeyText("rsa", "rsa@test", bits);

describe("the rules", () => {
  it("each has an id, a one-line reason and a default severity", () => {
    expect(Object.keys(RULES)).toEqual([...RULE_IDS]);
    expect(RULE_IDS).toEqual(["token-expiry", "token-scopes", "token-renewal", "oauth-redirect-https", "oauth-public", "ssh-key-strength", "label-pattern"]);
    for (const id of RULE_IDS) {
      expect(RULES[id].id).toBe(id);
      expect(RULES[id].reason).toMatch(/^[^\n]{20,200}$/);
      expect(["error", "warning"]).toContain(RULES[id].defaultSeverity);
    }
  });

  describe("token-expiry", () => {
    it("passes a lifetime within the maximum, fails a longer one or none", () => {
      expect(check("token-expiry", token({ expires_in: "2160h" }))).toEqual({ kind: "pass" });
      expect(check("token-expiry", token({ expires_in: "2161h" }))).toEqual({
        kind: "violation",
        message: '`expires_in` "2161h" is longer than the maximum lifetime 2160h (90 days)',
      });
      expect(check("token-expiry", token({ expires_in: null, expiry: null }))).toMatchObject({
        kind: "violation",
        message: expect.stringMatching(/never expires/),
      });
      expect(kind(check("token-expiry", token({ expires_in: "720h" }), { max_lifetime: "168h", maxLifetimeMs: 168 * 3_600_000 }))).toBe("violation");
    });

    it("reads an absolute expiry against now", () => {
      expect(kind(check("token-expiry", token({ expires_in: null, expiry: "2026-07-01T00:00:00Z" })))).toBe("pass");
      expect(check("token-expiry", token({ expires_in: null, expiry: "2027-06-01T00:00:00+02:00" }))).toMatchObject({
        kind: "violation",
        message: expect.stringContaining("further away than the maximum lifetime"),
      });
    });

    it("is not checkable while the lifetime is unknown, and never prints a sensitive value", () => {
      expect(check("token-expiry", token({ expires_in: UNKNOWN }))).toEqual({
        kind: "unknown",
        message: "`expires_in` is known only after apply: not checkable at plan",
      });
      expect(kind(check("token-expiry", token({ expires_in: null, expiry: UNKNOWN })))).toBe("unknown");
      const hidden = check("token-expiry", token({ expires_in: "9999h" }, { sensitive: ["expires_in"] }));
      expect(hidden).toMatchObject({ kind: "violation" });
      expect(JSON.stringify(hidden)).not.toContain("9999h");
      expect(JSON.stringify(hidden)).toContain("(sensitive)");
    });
  });

  describe("token-scopes", () => {
    it("fails *, unset scopes, read_write on a read-only area, an area outside the allowed ones", () => {
      expect(check("token-scopes", token({ scopes: "*" }))).toMatchObject({ kind: "violation", message: expect.stringContaining("`*`") });
      expect(check("token-scopes", token({ scopes: null }))).toMatchObject({ kind: "violation", message: expect.stringContaining("not set") });
      expect(check("token-scopes", token({ scopes: "account:read_write events:read_only" }), { read_only_areas: ["account", "events"] })).toEqual({
        kind: "violation",
        message: "`scopes` asks for `read_write` on `account`, read-only for the team",
      });
      expect(check("token-scopes", token({ scopes: "events:read_only child_account:read_only" }), { allowed_areas: ["account", "events"] })).toMatchObject({
        kind: "violation",
        message: expect.stringContaining("`child_account` outside the allowed areas"),
      });
    });

    it("passes what the team allows; unknown scopes are not checkable", () => {
      expect(kind(check("token-scopes", token({ scopes: "account:read_only events:read_write" }), { read_only_areas: ["account"] }))).toBe("pass");
      expect(kind(check("token-scopes", token({ scopes: "account:read_write" })))).toBe("pass");
      expect(kind(check("token-scopes", token({ scopes: UNKNOWN })))).toBe("unknown");
    });
  });

  describe("token-renewal", () => {
    it("fails a missing, short or lifetime-long renew_before; passes one that spans the schedule", () => {
      expect(check("token-renewal", token({ renew_before: null }))).toMatchObject({ kind: "violation", message: expect.stringContaining("not set") });
      expect(check("token-renewal", token({ renew_before: "24h" }))).toMatchObject({ kind: "violation", message: expect.stringContaining("shorter than 72h") });
      expect(check("token-renewal", token({ expires_in: "168h", renew_before: "168h" }))).toMatchObject({
        kind: "violation",
        message: expect.stringContaining("every apply rotates the token"),
      });
      expect(kind(check("token-renewal", token({ renew_before: "72h" })))).toBe("pass");
      expect(kind(check("token-renewal", token({ renew_before: "72h" }), { min_renew_before: "336h", minRenewBeforeMs: 336 * 3_600_000 }))).toBe("violation");
    });

    it("leaves tokens without a lifetime to token-expiry; unknown renew_before is not checkable", () => {
      expect(kind(check("token-renewal", token({ expires_in: null, renew_before: null })))).toBe("pass");
      expect(kind(check("token-renewal", token({ renew_before: UNKNOWN })))).toBe("unknown");
    });
  });

  describe("oauth-redirect-https", () => {
    it("passes https and loopback http for public clients; fails other http", () => {
      expect(kind(check("oauth-redirect-https", client({})))).toBe("pass");
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: "http://127.0.0.1:8080/cb", public: true })))).toBe("pass");
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: "http://localhost/cb", public: true })))).toBe("pass");
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: "http://[::1]:9/cb", public: true })))).toBe("pass");
      expect(check("oauth-redirect-https", client({ redirect_uri: "http://app.example.com/cb" }))).toEqual({
        kind: "violation",
        message: '`redirect_uri` "http://app.example.com/cb" is not https',
      });
      expect(check("oauth-redirect-https", client({ redirect_uri: "http://localhost/cb", public: false }))).toMatchObject({
        kind: "violation",
        message: expect.stringContaining("only for public clients"),
      });
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: "http://localhost.evil.com/cb", public: true })))).toBe("violation");
    });

    it("is not checkable while the URI, or whether a loopback client is public, is unknown", () => {
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: UNKNOWN })))).toBe("unknown");
      expect(kind(check("oauth-redirect-https", client({ redirect_uri: "http://localhost/cb", public: UNKNOWN })))).toBe("unknown");
      // https decides without knowing `public`.
      expect(kind(check("oauth-redirect-https", client({ public: UNKNOWN })))).toBe("pass");
    });
  });

  it("oauth-public reports public clients", () => {
    expect(check("oauth-public", client({ public: true }))).toMatchObject({ kind: "violation", message: expect.stringContaining("public") });
    expect(kind(check("oauth-public", client({ public: false })))).toBe("pass");
    expect(kind(check("oauth-public", client({ public: UNKNOWN })))).toBe("unknown");
  });

  describe("ssh-key-strength", () => {
    it("passes ed25519, ECDSA and RSA of 3072 bits; fails RSA 2048 naming its size", () => {
      expect(kind(check("ssh-key-strength", key(sshKeyText("ed25519", "a@b"))))).toBe("pass");
      expect(kind(check("ssh-key-strength", key(sshKeyText("ecdsa", "a@b"))))).toBe("pass");
      expect(kind(check("ssh-key-strength", key(rsaKey(3072))))).toBe("pass");
      expect(check("ssh-key-strength", key(sshKeyText("rsa", "a@b")))).toEqual({
        kind: "violation",
        message: "RSA key of 2048 bits; at least 3072 are required (or use ed25519)",
      });
      expect(kind(check("ssh-key-strength", key(rsaKey(3072)), { min_rsa_bits: 4096 }))).toBe("violation");
    });

    it("fails DSA keys and keys that do not parse; unknown keys are not checkable", () => {
      const sshString = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
      const dss = Buffer.concat([sshString(Buffer.from("ssh-dss")), ...[1, 2, 3, 4].map((n) => sshString(Buffer.alloc(20, n)))]).toString("base64");
      expect(check("ssh-key-strength", key(`ssh-dss ${dss}`))).toMatchObject({
        kind: "violation",
        message: expect.stringContaining("`ssh-dss` keys are not allowed"),
      });
      expect(kind(check("ssh-key-strength", key("ssh-ed25519 AAAA")))).toBe("violation");
      expect(kind(check("ssh-key-strength", key(UNKNOWN)))).toBe("unknown");
    });

    it("counts an mpint's bits past its sign byte", () => {
      expect(modulusBits(Uint8Array.from([0x00, 0x80, 0x00]))).toBe(16);
      expect(modulusBits(Uint8Array.from([0x01, 0x00]))).toBe(9);
      expect(modulusBits(Uint8Array.from([0x00]))).toBe(0);
    });
  });

  describe("label-pattern", () => {
    it("does nothing without a pattern; with one, fails labels that do not match", () => {
      expect(kind(check("label-pattern", token({ label: "anything" })))).toBe("pass");
      expect(kind(check("label-pattern", token({ label: "team-ci deploy" }), { pattern: "^team-[a-z]+ " }))).toBe("pass");
      expect(check("label-pattern", client({ label: "dashboard" }), { pattern: "^team-[a-z]+ " })).toEqual({
        kind: "violation",
        message: '`label` "dashboard" does not match the naming pattern /^team-[a-z]+ /',
      });
      expect(kind(check("label-pattern", token({ label: UNKNOWN }), { pattern: "^team-" }))).toBe("unknown");
    });

    it("applies to tokens and OAuth clients, not SSH keys", () => {
      expect(RULES["label-pattern"].types).toEqual(["mgmt_token", "mgmt_oauth_client"]);
    });
  });
});
