/**
 * Phone verification. States: no verified number → (request) code sent, valid 10 minutes →
 * (verify with the code, same user, in time) verified → (delete) no verified number. A
 * repeat request before expiry sends the same code again (its 10 minutes still count from
 * the first sending). SMS is simulated: messages go to `outbox`.
 */
import type { z } from "zod";
import { PHONE_CODE_MINUTES, type PhoneNumberSend, type PhoneNumberVerify } from "../../../contract";
import type { ProfileRepos } from "../profile/store";
import type { SecurityRepos } from "./store";
import { MINUTE, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { invalid } from "../../domain/errors";

export interface SmsMessage {
  userId: number;
  isoCode: string;
  phoneNumber: string;
  code: string;
  text: string;
  sent: string;
}

/** Messages kept for inspection (the admin namespace, later; tests). */
export const OUTBOX_SIZE = 100;

export type PhoneRequest = z.output<typeof PhoneNumberSend>;
export type PhoneVerification = z.output<typeof PhoneNumberVerify>;

/** The number as stored: separators removed, a leading `+` kept. */
export const normalizePhoneNumber = (text: string): string => {
  const trimmed = text.trim();
  return (trimmed.startsWith("+") ? "+" : "") + trimmed.replace(/\D/g, "");
};

export class PhoneService {
  readonly outbox: SmsMessage[] = [];

  constructor(private readonly deps: Deps<SecurityRepos & ProfileRepos>) {}

  /** The six-digit one-time code. */
  private newCode(): string {
    return String(parseInt(this.deps.secrets.hex(4), 16) % 1_000_000).padStart(6, "0");
  }

  async request(actor: Actor, input: PhoneRequest): Promise<void> {
    const { store, clock } = this.deps;
    const now = wireNow(clock);
    const message = await store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (user?.verified_phone_number != null) {
        throw invalid(null, "A verified phone number is already set; delete it before verifying another");
      }
      const pending = await tx.phoneCodes.get(actor.user.id);
      const live = pending !== undefined && pending.expiry > now ? pending : undefined;
      const code = live?.code ?? this.newCode();
      const phoneNumber = normalizePhoneNumber(input.phone_number);
      await tx.phoneCodes.put({
        user_id: actor.user.id,
        iso_code: input.iso_code,
        phone_number: phoneNumber,
        code,
        sent: live?.sent ?? now,
        expiry: live?.expiry ?? wireAt(clock, PHONE_CODE_MINUTES * MINUTE),
      });
      // Requesting a code is the opt-in to SMS.
      await tx.users.update(actor.user.id, { sms_opt_in: true });
      return { userId: actor.user.id, isoCode: input.iso_code, phoneNumber, code, text: `Your verification code is ${code}`, sent: now };
    });
    this.outbox.push(message);
    if (this.outbox.length > OUTBOX_SIZE) this.outbox.shift();
  }

  async verify(actor: Actor, input: PhoneVerification): Promise<void> {
    const { store, clock } = this.deps;
    const now = wireNow(clock);
    await store.transaction(async (tx) => {
      // Codes are kept per user, so only the requesting user can use one.
      const pending = await tx.phoneCodes.get(actor.user.id);
      if (pending === undefined) throw invalid(null, "No verification code has been requested; send one with POST /profile/phone-number");
      if (pending.expiry <= now) throw invalid("otp_code", "The verification code has expired; request a new one");
      if (input.otp_code !== pending.code) throw invalid("otp_code", "Invalid verification code");
      await tx.users.update(actor.user.id, { verified_phone_number: pending.phone_number });
      await tx.phoneCodes.delete(actor.user.id);
    });
  }

  async delete(actor: Actor): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (user?.verified_phone_number == null) throw invalid(null, "There is no verified phone number to delete");
      await tx.users.update(actor.user.id, { verified_phone_number: null, sms_opt_in: false });
      await tx.phoneCodes.delete(actor.user.id);
    });
  }
}
