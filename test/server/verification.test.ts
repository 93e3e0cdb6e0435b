/** @tier unit */
/** The time-ruled state machines: phone verification, security questions, two-factor authentication. */
import { ErrorBody, Profile, SecurityQuestionList, SecurityQuestionsAnswered, TfaScratch, TfaSecret } from "../../src/contract";
import { base32Decode, hotp, totp } from "../../src/server/areas/security/totp";
import { call, startTestServer, type TestServer } from "./helpers";
import { at, newActor } from "./actors";

const MINUTE = 60_000;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const reason = (body: unknown) => ErrorBody.parse(body).errors[0]!;
const profile = async (token: string) => Profile.parse((await call(server, "GET", "/profile", { token })).body);
const lastCode = (userId: number) => [...server.domain.phone.outbox].reverse().find((m) => m.userId === userId)!.code;

describe("phone verification", () => {
  const send = (token: string, json: unknown = { iso_code: "us", phone_number: "+1 (555) 555-0100" }) =>
    call(server, "POST", "/profile/phone-number", { token, json });
  const verify = (token: string, otp_code: unknown) => call(server, "POST", "/profile/phone-number/verify", { token, json: { otp_code } });

  test("send → verify → delete → send again", async () => {
    const { user, token } = await newActor(server);
    const sent = await send(token);
    expect([sent.status, sent.body]).toEqual([200, {}]);
    const code = lastCode(user.id);
    expect(code).toMatch(/^\d{6}$/);
    expect((await profile(token)).verified_phone_number).toBeNull();
    expect(await verify(token, code)).toMatchObject({ status: 200, body: {} });
    expect((await profile(token)).verified_phone_number).toBe("+15555550100");
    // Verified: a new number needs delete first; the code is used up.
    expect((await send(token)).status).toBe(400);
    expect((await verify(token, code)).status).toBe(400);
    expect(await call(server, "DELETE", "/profile/phone-number", { token })).toMatchObject({ status: 200, body: {} });
    expect((await profile(token)).verified_phone_number).toBeNull();
    expect((await call(server, "DELETE", "/profile/phone-number", { token })).status).toBe(400);
    expect((await send(token)).status).toBe(200);
  });

  test("verify with no code requested → 400; a wrong code → 400 naming otp_code", async () => {
    const { token } = await newActor(server);
    const none = await verify(token, "123456");
    expect(none.status).toBe(400);
    expect(reason(none.body).reason).toMatch(/No verification code/);
    await send(token);
    const wrong = await verify(token, "not-it");
    expect(wrong.status).toBe(400);
    expect(reason(wrong.body)).toEqual({ field: "otp_code", reason: "Invalid verification code" });
  });

  test("a repeat request before expiry resends the same code; the 10 minutes count from the first", async () => {
    const { user, token } = await newActor(server);
    await send(token);
    const first = lastCode(user.id);
    server.clock.advance(9 * MINUTE);
    await send(token);
    expect(lastCode(user.id)).toBe(first);
    expect(server.domain.phone.outbox.filter((m) => m.userId === user.id)).toHaveLength(2);
    server.clock.advance(MINUTE);
    const expired = await verify(token, first);
    expect(expired.status).toBe(400);
    expect(reason(expired.body)).toEqual({ field: "otp_code", reason: "The verification code has expired; request a new one" });
    // After expiry a request sends a new code, valid 10 minutes.
    await send(token);
    const second = lastCode(user.id);
    server.clock.advance(10 * MINUTE - 1000);
    expect((await verify(token, second)).status).toBe(200);
  });

  test("only the requesting user can verify with the code", async () => {
    const a = await newActor(server);
    const b = await newActor(server);
    await send(a.token);
    const code = lastCode(a.user.id);
    expect((await verify(b.token, code)).status).toBe(400);
    expect((await profile(b.token)).verified_phone_number).toBeNull();
    expect((await verify(a.token, code)).status).toBe(200);
  });

  test.each([
    [{}, "iso_code"],
    [{ iso_code: "USA", phone_number: "5555550100" }, "iso_code"],
    [{ iso_code: "1", phone_number: "5555550100" }, "iso_code"],
    [{ iso_code: "US" }, "phone_number"],
    [{ iso_code: "US", phone_number: "call me" }, "phone_number"],
    [{ iso_code: "US", phone_number: "12" }, "phone_number"],
    [{ iso_code: "US", phone_number: "1".repeat(16) }, "phone_number"],
    [{ iso_code: "US", phone_number: 5555550100 }, "phone_number"],
  ])("send %j → 400 naming %s", async (json, field) => {
    const { token } = await newActor(server);
    const res = await send(token, json);
    expect(res.status).toBe(400);
    expect(reason(res.body).field).toBe(field);
  });

  test("verify without otp_code → 400 naming it", async () => {
    const { token } = await newActor(server);
    for (const json of [{}, { otp_code: "" }, { otp_code: 123456 }]) {
      const res = await call(server, "POST", "/profile/phone-number/verify", { token, json });
      expect([res.status, reason(res.body).field]).toEqual([400, "otp_code"]);
    }
  });
});

describe("security questions", () => {
  const answer = (token: string, items: unknown) => call(server, "POST", "/profile/security-questions", { token, json: { security_questions: items } });
  const three = (ids: number[], prefix = "resp") => ids.map((id) => ({ question_id: id, response: `${prefix} ${id}` }));

  test("the catalogue, three answers, overwrite and reset", async () => {
    const { token } = await newActor(server);
    const before = SecurityQuestionList.parse((await call(server, "GET", "/profile/security-questions", { token })).body);
    expect(before.security_questions.length).toBeGreaterThanOrEqual(3);
    expect(before.security_questions.every((q) => q.response === null)).toBe(true);

    const res = await answer(token, three([1, 2, 3]));
    expect(res.status).toBe(200);
    const answered = SecurityQuestionsAnswered.parse(res.body);
    expect(answered.security_questions).toEqual(
      [1, 2, 3].map((id) => ({ question_id: id, response: `resp ${id}`, security_question: before.security_questions.find((q) => q.id === id)!.question })),
    );
    await answer(token, three([3, 4, 5], "new"));
    const after = SecurityQuestionList.parse((await call(server, "GET", "/profile/security-questions", { token })).body);
    const responses = Object.fromEntries(after.security_questions.map((q) => [q.id, q.response]));
    expect(responses).toMatchObject({ 1: null, 2: null, 3: "new 3", 4: "new 4", 5: "new 5" });
  });

  test.each([
    ["two answers", three([1, 2]), "security_questions"],
    ["four answers", three([1, 2, 3, 4]), "security_questions"],
    ["a repeated question", three([1, 2, 2]), "security_questions.2.question_id"],
    ["an unknown question", three([1, 2, 999]), "security_questions.2.question_id"],
    ["a short response", [...three([1, 2]), { question_id: 3, response: "ab" }], "security_questions.2.response"],
    ["a long response", [...three([1, 2]), { question_id: 3, response: "x".repeat(18) }], "security_questions.2.response"],
    ["a non-integer id", [...three([1, 2]), { question_id: "3", response: "abc" }], "security_questions.2.question_id"],
    ["not an array", "1,2,3", "security_questions"],
  ])("%s → 400 naming %s", async (_what, items, field) => {
    const { token } = await newActor(server);
    const res = await answer(token, items);
    expect(res.status).toBe(400);
    expect(reason(res.body).field).toBe(field);
  });

  test("limits: 3 and 17 characters are accepted", async () => {
    const { token } = await newActor(server);
    const res = await answer(token, [
      { question_id: 1, response: "abc" },
      { question_id: 2, response: "x".repeat(17) },
      { question_id: 3, response: "ok ok" },
    ]);
    expect(res.status).toBe(200);
  });
});

describe("two-factor authentication", () => {
  const enable = (token: string) => call(server, "POST", "/profile/tfa-enable", { token });
  const confirm = (token: string, tfa_code: unknown) => call(server, "POST", "/profile/tfa-enable-confirm", { token, json: { tfa_code } });
  const answered = async () => {
    const actor = await newActor(server);
    await call(server, "POST", "/profile/security-questions", {
      token: actor.token,
      json: { security_questions: [1, 2, 3].map((id) => ({ question_id: id, response: `r ${id}` })) },
    });
    return actor;
  };

  test("RFC 6238 reference value (SHA-1)", () => {
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // "12345678901234567890"
    expect(base32Decode(secret).toString()).toBe("12345678901234567890");
    expect(totp(secret, new Date(59_000), 8)).toBe("94287082");
    expect(totp(secret, new Date(1_111_111_109_000), 8)).toBe("07081804");
    expect(hotp(Buffer.from("12345678901234567890"), 0)).toBe("755224");
  });

  test("enable → confirm → disable", async () => {
    const { token } = await answered();
    const res = await enable(token);
    expect(res.status).toBe(200);
    const issued = TfaSecret.parse(res.body);
    expect(issued.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(issued.expiry).toBe(at(server, 30 * MINUTE));
    expect((await profile(token)).two_factor_auth).toBe(false);

    const ok = await confirm(token, totp(issued.secret, server.clock.now()));
    expect(ok.status).toBe(200);
    expect(TfaScratch.parse(ok.body).scratch).toMatch(/^\S{8,}$/);
    expect((await profile(token)).two_factor_auth).toBe(true);

    // Enabled: enable and confirm are refused.
    expect((await enable(token)).status).toBe(400);
    expect((await confirm(token, totp(issued.secret, server.clock.now()))).status).toBe(400);

    expect(await call(server, "POST", "/profile/tfa-disable", { token })).toMatchObject({ status: 200, body: {} });
    expect((await profile(token)).two_factor_auth).toBe(false);
    expect((await call(server, "POST", "/profile/tfa-disable", { token })).status).toBe(400);
    // Disabled again: the old secret is gone, a new one must be issued.
    expect((await confirm(token, totp(issued.secret, server.clock.now()))).status).toBe(400);
  });

  test("enable requires answered security questions", async () => {
    const { token } = await newActor(server);
    const res = await enable(token);
    expect(res.status).toBe(400);
    expect(reason(res.body).reason).toMatch(/Security questions must be answered/);
  });

  test("confirm with no secret issued → 400; disable when disabled → 400", async () => {
    const { token } = await answered();
    const res = await confirm(token, "123456");
    expect(res.status).toBe(400);
    expect(reason(res.body).reason).toMatch(/No two-factor secret/);
    expect((await call(server, "POST", "/profile/tfa-disable", { token })).status).toBe(400);
  });

  test("codes one step either side are accepted, two steps are not; wrong codes → 400 naming tfa_code", async () => {
    const { token } = await answered();
    const { secret } = TfaSecret.parse((await enable(token)).body);
    const now = server.clock.now().getTime();
    for (const code of [totp(secret, new Date(now - 60_000)), totp(secret, new Date(now + 60_000)), "12345", "abcdef", "1234567", ""]) {
      const res = await confirm(token, code);
      expect(res.status).toBe(400);
      expect(reason(res.body)).toEqual({ field: "tfa_code", reason: "Invalid two-factor code" });
    }
    const missing = await call(server, "POST", "/profile/tfa-enable-confirm", { token, json: {} });
    expect([missing.status, reason(missing.body).field]).toEqual([400, "tfa_code"]);
    expect((await confirm(token, totp(secret, new Date(now - 30_000)))).status).toBe(200);
  });

  test("the secret expires after 30 minutes; a new enable replaces it", async () => {
    const { token } = await answered();
    const first = TfaSecret.parse((await enable(token)).body);
    const second = TfaSecret.parse((await enable(token)).body);
    expect(second.secret).not.toBe(first.secret);
    expect((await confirm(token, totp(first.secret, server.clock.now()))).status).toBe(400);
    server.clock.advance(30 * MINUTE);
    const late = await confirm(token, totp(second.secret, server.clock.now()));
    expect(late.status).toBe(400);
    expect(reason(late.body).reason).toMatch(/expired/);
  });
});
