/**
 * Security questions: a fixed catalogue; an answer request names exactly three unique
 * questions, which overwrite earlier responses while every other question resets to null.
 * Two-factor authentication: disabled → (enable, security questions answered) secret issued
 * → (confirm with a current TOTP code) enabled → (disable) disabled.
 */
import type { z } from "zod";
import { SECURITY_ANSWERS_PER_REQUEST, type SecurityQuestionsAnswer, type TfaConfirm } from "../../../contract";
import type { StoreOf } from "../../store/store";
import type { EventRepos } from "../events/store";
import type { ProfileRepos } from "../profile/store";
import type { TokenRepos } from "../tokens/store";
import type { SecurityAnswerRecord, SecurityRepos } from "./store";

type Repos = SecurityRepos & ProfileRepos & TokenRepos & EventRepos;
type Store = StoreOf<Repos>;
import { MINUTE, stillAhead, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { invalid } from "../../domain/errors";
import { entities } from "../../domain/event-entities";
import { noteEvent } from "../events";
import { hashToken } from "../../auth/credentials";
import { base32Encode, verifyTotp } from "./totp";

export const SECURITY_QUESTIONS: ReadonlyArray<{ id: number; question: string }> = [
  { id: 1, question: "In what city were you born?" },
  { id: 2, question: "What was the name of your first pet?" },
  { id: 3, question: "What was the make of your first car?" },
  { id: 4, question: "What was the name of your elementary school?" },
  { id: 5, question: "In what city did your parents meet?" },
  { id: 6, question: "What is the name of your favorite teacher?" },
  { id: 7, question: "What was your childhood nickname?" },
  { id: 8, question: "What street did you grow up on?" },
  { id: 9, question: "What was the first concert you attended?" },
  { id: 10, question: "What is your oldest cousin's first name?" },
  { id: 11, question: "In what city or town was your first job?" },
  { id: 12, question: "What was the name of your first stuffed animal?" },
];

const questionText = (id: number): string | undefined => SECURITY_QUESTIONS.find((q) => q.id === id)?.question;

export type SecurityAnswers = z.output<typeof SecurityQuestionsAnswer>;
export type TfaConfirmation = z.output<typeof TfaConfirm>;

/** How long an issued, unconfirmed two-factor secret can be confirmed. */
export const TFA_SECRET_MINUTES = 30;
/** Bytes of a two-factor secret (160 bits, RFC 4226's recommendation): 32 base32 characters. */
export const TFA_SECRET_BYTES = 20;

export class SecurityQuestionService {
  constructor(private readonly deps: Deps<Repos>) {}

  async list(actor: Actor): Promise<Array<{ id: number; question: string; response: string | null }>> {
    const answers = new Map((await this.deps.store.securityAnswers.list(actor.user.id)).map((a) => [a.question_id, a.response]));
    return SECURITY_QUESTIONS.map((q) => ({ ...q, response: answers.get(q.id) ?? null }));
  }

  async answer(actor: Actor, input: SecurityAnswers): Promise<Array<SecurityAnswerRecord & { security_question: string }>> {
    const items = input.security_questions.map((a, i) => {
      const text = questionText(a.question_id);
      if (text === undefined) throw invalid(`security_questions.${i}.question_id`, `There is no security question ${a.question_id}`);
      return { question_id: a.question_id, response: a.response, security_question: text };
    });
    await this.deps.store.transaction((tx) =>
      tx.securityAnswers.replace(
        actor.user.id,
        items.map(({ question_id, response }) => ({ question_id, response })),
      ),
    );
    return items;
  }

  /** Whether the user has answered their security questions (`store`: the caller's transaction). */
  async answered(userId: number, store: Store = this.deps.store): Promise<boolean> {
    return (await store.securityAnswers.list(userId)).length >= SECURITY_ANSWERS_PER_REQUEST;
  }
}

export class TwoFactorService {
  constructor(
    private readonly deps: Deps<Repos>,
    private readonly questions: SecurityQuestionService,
  ) {}

  async enable(actor: Actor): Promise<{ secret: string; expiry: string }> {
    const { store, clock, secrets } = this.deps;
    return store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (user?.two_factor_auth) throw invalid(null, "Two-factor authentication is already enabled");
      if (!(await this.questions.answered(actor.user.id, tx))) {
        throw invalid(null, "Security questions must be answered (POST /profile/security-questions) before enabling two-factor authentication");
      }
      // A new request replaces an earlier unconfirmed secret.
      const secret = base32Encode(Buffer.from(secrets.hex(TFA_SECRET_BYTES), "hex"));
      const expiry = wireAt(clock, TFA_SECRET_MINUTES * MINUTE);
      await tx.tfaSecrets.put({ user_id: actor.user.id, secret, expiry, confirmed: null, scratch_hash: null });
      return { secret, expiry };
    });
  }

  async confirm(actor: Actor, input: TfaConfirmation): Promise<{ scratch: string }> {
    const { store, clock, secrets } = this.deps;
    return store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (user?.two_factor_auth) throw invalid(null, "Two-factor authentication is already enabled");
      const pending = await tx.tfaSecrets.get(actor.user.id);
      if (pending === undefined || pending.confirmed !== null) {
        throw invalid(null, "No two-factor secret has been issued; request one with POST /profile/tfa-enable");
      }
      if (!stillAhead(pending.expiry, clock)) throw invalid(null, "The two-factor secret has expired; request a new one with POST /profile/tfa-enable");
      if (!verifyTotp(pending.secret, input.tfa_code.trim(), clock.now())) throw invalid("tfa_code", "Invalid two-factor code");
      const scratch = secrets.hex(8);
      await tx.tfaSecrets.put({ ...pending, confirmed: wireNow(clock), scratch_hash: hashToken(scratch) });
      await tx.users.update(actor.user.id, { two_factor_auth: true });
      await noteEvent(this.deps, { actor, action: "tfa_enabled", entity: entities.profile(actor.user) }, tx);
      return { scratch };
    });
  }

  async disable(actor: Actor): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const user = await tx.users.get(actor.user.id);
      if (!user?.two_factor_auth) throw invalid(null, "Two-factor authentication is not enabled");
      await tx.tfaSecrets.delete(actor.user.id);
      await tx.users.update(actor.user.id, { two_factor_auth: false });
      await noteEvent(this.deps, { actor, action: "tfa_disabled", entity: entities.profile(actor.user) }, tx);
    });
  }
}
