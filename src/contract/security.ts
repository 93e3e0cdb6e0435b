/** Security questions and two-factor authentication. */
import { z } from "zod";
import { Timestamp } from "./common";

/** Upstream's response length bounds. */
export const SECURITY_RESPONSE = { min: 3, max: 17 } as const;
export const SECURITY_ANSWERS_PER_REQUEST = 3;

export const SecurityQuestion = z.object({ id: z.number().int(), question: z.string(), response: z.string().nullable() });
export const SecurityQuestionList = z.object({ security_questions: z.array(SecurityQuestion) });
export type SecurityQuestionList = z.infer<typeof SecurityQuestionList>;

const responseReason = `Length must be between ${SECURITY_RESPONSE.min} and ${SECURITY_RESPONSE.max} characters.`;
export const SecurityAnswer = z.object({
  question_id: z.number().int("question_id must be an integer").positive("question_id must be positive"),
  response: z.string().min(SECURITY_RESPONSE.min, responseReason).max(SECURITY_RESPONSE.max, responseReason),
});

export const SecurityQuestionsAnswer = z.object({
  security_questions: z
    .array(SecurityAnswer)
    .length(SECURITY_ANSWERS_PER_REQUEST, `Exactly ${SECURITY_ANSWERS_PER_REQUEST} security questions must be answered`)
    .superRefine((items, ctx) => {
      const seen = new Set<number>();
      items.forEach((item, i) => {
        if (seen.has(item.question_id)) {
          ctx.addIssue({ code: "custom", path: [i, "question_id"], message: "Security questions must be unique" });
        }
        seen.add(item.question_id);
      });
    }),
});
export type SecurityQuestionsAnswer = z.input<typeof SecurityQuestionsAnswer>;

export const SecurityQuestionsAnswered = z.object({
  security_questions: z.array(z.object({ question_id: z.number().int(), response: z.string(), security_question: z.string() })),
});

/** A two-factor secret issued by `POST /profile/tfa-enable` (base32, RFC 6238 TOTP, SHA-1, 30 s, 6 digits). */
export const TfaSecret = z.object({ secret: z.string(), expiry: Timestamp });
export type TfaSecret = z.infer<typeof TfaSecret>;

export const TfaConfirm = z.object({ tfa_code: z.string() });
export type TfaConfirm = z.input<typeof TfaConfirm>;

export const TfaScratch = z.object({ scratch: z.string() });
export type TfaScratch = z.infer<typeof TfaScratch>;
