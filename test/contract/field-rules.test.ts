/**
 * The contract's field rules: the provider validates with them at plan, and the server's request
 * schemas are built from them, so both must refuse the same values with the same reasons.
 */
import {
  ACCOUNT_CONTACT_RULES,
  AccountUpdate,
  ChildAccountEuuid,
  OAuthClientCreate,
  ProfileUpdate,
  TAGGED_OBJECT_TYPES,
  TagCreate,
  TaggedObject,
  SSH_KEY_LABEL_MAX,
  TokenCreate,
  childAccountEuuid,
  lengthBetween,
  sshKeyLabel,
  email,
  oauthScopesText,
  redirectUri,
  tagLabel,
  timeZone,
  tokenLabel,
} from "../../src/contract";

describe("field rules", () => {
  test("lengths count characters (code points), as upstream does and the messages say", () => {
    expect(tokenLabel("a".repeat(100))).toBeUndefined();
    expect(tokenLabel("a".repeat(101))).toBe("Length must be between 1 and 100 characters.");
    expect(tokenLabel("")).toBe("Length must be between 1 and 100 characters.");
    // One emoji is one character (two UTF-16 units): 50 of them fit a tag, 51 do not.
    expect(tagLabel("🙂".repeat(50))).toBeUndefined();
    expect(tagLabel("🙂".repeat(51))).toBe("Length must be between 3 and 50 characters.");
    // An SSH key label of 33 emoji (66 units) is 33 characters: accepted.
    expect(lengthBetween(1, SSH_KEY_LABEL_MAX)("🙂".repeat(33))).toBeUndefined();
    expect(sshKeyLabel("🙂".repeat(33))).toBeUndefined();
    expect(sshKeyLabel("🙂".repeat(65))).toBe("Length must be 64 characters or less.");
  });

  test("email addresses", () => {
    for (const ok of ["ops@example.com", "first.last+billing@mail.example.co", "o'neil_1@example.org"]) expect(email(ok)).toBeUndefined();
    for (const bad of ["nobody", "a@b", "a..b@example.com", ".a@example.com", "a.@example.com", "a@-x.example.com", "a@example.c0m", "a b@example.com"]) {
      expect(email(bad)).toBe("Must be a valid email address");
    }
    expect(email(`${"a".repeat(117)}@example.com`)).toBe("Length must be 128 characters or less.");
    expect(ACCOUNT_CONTACT_RULES.email("billing@example.com")).toBeUndefined();
  });

  test("redirect URIs, time zones, euuids and scopes", () => {
    for (const ok of ["https://app.example.com/cb", "http://127.0.0.1:8080/callback?x=1"]) expect(redirectUri(ok)).toBeUndefined();
    for (const bad of ["ftp://example.com/cb", "/relative/path", "not a url", "https://"]) {
      expect(redirectUri(bad)).toBe("redirect_uri must be an absolute http or https URL");
    }
    expect(redirectUri(`https://example.com/${"x".repeat(2000)}`)).toBe("Length must be 2000 characters or less.");
    expect(timeZone("America/New_York")).toBeUndefined();
    expect(timeZone("Mars/Olympus_Mons")).toBe("Must be a valid time zone such as UTC or America/New_York");
    expect(childAccountEuuid("A1B2C3D4-0000-4000-8000-000000000001")).toBeUndefined();
    expect(childAccountEuuid("a/b")).toBe('must be a child account euuid, without spaces or slashes; got "a/b"');
    expect(oauthScopesText("account:read_only tokens:read_write")).toBeUndefined();
    expect(oauthScopesText("account:everything")).toEqual(expect.any(String));
  });

  test("the server's request schemas refuse with the rules' reasons", () => {
    const reasons = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues.map((i) => i.message) ?? [];
    expect(reasons(TokenCreate.safeParse({ label: "" }))).toEqual([tokenLabel("")]);
    expect(reasons(TagCreate.safeParse({ label: "ab" }))).toEqual([tagLabel("ab")]);
    expect(reasons(OAuthClientCreate.safeParse({ label: "app", redirect_uri: "ftp://x" }))).toEqual([redirectUri("ftp://x")]);
    expect(reasons(ProfileUpdate.safeParse({ email: "nobody", timezone: "Nowhere" }))).toEqual([email("nobody"), timeZone("Nowhere")]);
    expect(reasons(ChildAccountEuuid.safeParse("a b"))).toEqual([childAccountEuuid("a b")]);
    expect(reasons(AccountUpdate.safeParse({ country: "USA", zip: "1".repeat(17) }))).toEqual([
      ACCOUNT_CONTACT_RULES.country("USA"),
      ACCOUNT_CONTACT_RULES.zip("1".repeat(17)),
    ]);
    // What the rules do not change: the country is still taken upper-cased.
    expect(AccountUpdate.parse({ country: "ca" })).toEqual({ country: "CA" });
  });

  test("the tagged object types are the ones GET /tags/{label} answers", () => {
    expect(TaggedObject.options.map((o) => o.shape.type.value)).toEqual([...TAGGED_OBJECT_TYPES]);
  });
});
