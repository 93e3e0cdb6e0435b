/** Phone verification, security questions, two-factor authentication. */
import {
  EmptyBody,
  PhoneNumberSend,
  PhoneNumberVerify,
  SecurityQuestionList,
  SecurityQuestionsAnswer,
  SecurityQuestionsAnswered,
  TfaConfirm,
  TfaScratch,
  TfaSecret,
} from "../../../contract";
import type { PhoneService } from "./phone";
import type { SecurityQuestionService, TwoFactorService } from "./service";
import { answer } from "../../http/present";
import type { Router } from "../../http/router";

export function securityRoutes(r: Router, domain: { phone: PhoneService; securityQuestions: SecurityQuestionService; twoFactor: TwoFactorService }): void {
  // The SMS goes to the outbox in memory once the code is stored: run again with the request's transaction (Postgres
  // retries), it would be sent twice. So the code commits on its own, and the answer is shaped before it.
  r.post(
    "/profile/phone-number",
    "account:read_write",
    {
      summary: "Send a verification code by SMS",
      body: PhoneNumberSend,
      response: EmptyBody,
      ownCommit: "the SMS it sends is kept in memory, outside the store",
    },
    async ({ actor, body }) => {
      const input = body();
      const done = answer(EmptyBody, {});
      await domain.phone.request(actor, input);
      return done;
    },
  );
  r.post(
    "/profile/phone-number/verify",
    "account:read_write",
    { summary: "Verify a phone number", body: PhoneNumberVerify, response: EmptyBody },
    async ({ actor, body }) => {
      await domain.phone.verify(actor, body());
      return answer(EmptyBody, {});
    },
  );
  r.delete("/profile/phone-number", "account:read_write", { summary: "Delete the verified phone number", response: EmptyBody }, async ({ actor }) => {
    await domain.phone.delete(actor);
    return answer(EmptyBody, {});
  });

  r.get("/profile/security-questions", "account:read_only", { summary: "List security questions", response: SecurityQuestionList }, async ({ actor }) =>
    answer(SecurityQuestionList, { security_questions: await domain.securityQuestions.list(actor) }),
  );
  r.post(
    "/profile/security-questions",
    "account:read_write",
    { summary: "Answer security questions", body: SecurityQuestionsAnswer, response: SecurityQuestionsAnswered },
    async ({ actor, body }) => {
      const input = body();
      return answer(SecurityQuestionsAnswered, { security_questions: await domain.securityQuestions.answer(actor, input) });
    },
  );

  r.post(
    "/profile/tfa-enable",
    "account:read_write",
    {
      summary: "Create a two-factor secret",
      response: TfaSecret,
    },
    async ({ actor }) => answer(TfaSecret, await domain.twoFactor.enable(actor)),
  );
  r.post(
    "/profile/tfa-enable-confirm",
    "account:read_write",
    {
      summary: "Confirm and enable two-factor authentication",
      body: TfaConfirm,
      response: TfaScratch,
    },
    async ({ actor, body }) => answer(TfaScratch, await domain.twoFactor.confirm(actor, body())),
  );
  r.post("/profile/tfa-disable", "account:read_write", { summary: "Disable two-factor authentication", response: EmptyBody }, async ({ actor }) => {
    await domain.twoFactor.disable(actor);
    return answer(EmptyBody, {});
  });
}
