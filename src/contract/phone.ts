/** Phone verification (`/profile/phone-number`). */
import { z } from "zod";

export const PHONE_CODE_MINUTES = 10;
export const PHONE_DIGITS = { min: 4, max: 15 } as const;

export const IsoCountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Must be a two-letter ISO 3166 country code")
  .transform((s) => s.toUpperCase());

/** Digits with optional `+` in front and spaces, dots, dashes or parentheses between; 4..15 digits (E.164). */
export const PhoneNumberText = z.string().superRefine((text, ctx) => {
  const ok = /^\+?[0-9 ().-]+$/.test(text.trim());
  const digits = text.replace(/\D/g, "").length;
  if (!ok || digits < PHONE_DIGITS.min || digits > PHONE_DIGITS.max) {
    ctx.addIssue({ code: "custom", message: `Must be a phone number of ${PHONE_DIGITS.min} to ${PHONE_DIGITS.max} digits` });
  }
});

export const PhoneNumberSend = z.object({ iso_code: IsoCountryCode, phone_number: PhoneNumberText });
export type PhoneNumberSend = z.input<typeof PhoneNumberSend>;

export const PhoneNumberVerify = z.object({ otp_code: z.string().min(1, "otp_code must not be empty").max(64, "otp_code is too long") });
export type PhoneNumberVerify = z.input<typeof PhoneNumberVerify>;
