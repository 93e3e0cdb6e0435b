/** Phone verification codes, security question answers and two-factor secrets: tables and queries. */
import type { Selectable } from "kysely";
import { Repository, type Handle } from "../../store/store";

/** The one pending phone verification of a user. */
export interface PhoneCodesTable {
  user_id: number;
  iso_code: string;
  phone_number: string;
  code: string;
  sent: string;
  expiry: string;
}

export interface SecurityAnswersTable {
  user_id: number;
  question_id: number;
  response: string;
}

/** A user's two-factor secret: pending (confirmed null) until confirmed. */
export interface TfaSecretsTable {
  user_id: number;
  secret: string;
  expiry: string;
  confirmed: string | null;
  scratch_hash: string | null;
}

export interface SecurityTables {
  phone_codes: PhoneCodesTable;
  security_answers: SecurityAnswersTable;
  tfa_secrets: TfaSecretsTable;
}

export type PhoneCodeRecord = Selectable<PhoneCodesTable>;
export type SecurityAnswerRecord = Omit<Selectable<SecurityAnswersTable>, "user_id">;
export type TfaSecretRecord = Selectable<TfaSecretsTable>;

// "Upserts" are a delete then an insert, which every dialect runs the same way; callers run them in a transaction.

export class PhoneCodes extends Repository<SecurityTables> {
  get(userId: number): Promise<PhoneCodeRecord | undefined> {
    return this.db.selectFrom("phone_codes").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }

  async put(code: PhoneCodeRecord): Promise<void> {
    await this.delete(code.user_id);
    await this.db.insertInto("phone_codes").values(code).execute();
  }

  async delete(userId: number): Promise<void> {
    await this.db.deleteFrom("phone_codes").where("user_id", "=", userId).execute();
  }
}

export class SecurityAnswers extends Repository<SecurityTables> {
  list(userId: number): Promise<SecurityAnswerRecord[]> {
    return this.db.selectFrom("security_answers").select(["question_id", "response"]).where("user_id", "=", userId).orderBy("question_id").execute();
  }

  /** Replaces every answer of the user. */
  async replace(userId: number, answers: SecurityAnswerRecord[]): Promise<void> {
    await this.db.deleteFrom("security_answers").where("user_id", "=", userId).execute();
    if (answers.length > 0)
      await this.db
        .insertInto("security_answers")
        .values(answers.map((a) => ({ user_id: userId, ...a })))
        .execute();
  }
}

export class TfaSecrets extends Repository<SecurityTables> {
  get(userId: number): Promise<TfaSecretRecord | undefined> {
    return this.db.selectFrom("tfa_secrets").selectAll().where("user_id", "=", userId).executeTakeFirst();
  }

  async put(secret: TfaSecretRecord): Promise<void> {
    await this.delete(secret.user_id);
    await this.db.insertInto("tfa_secrets").values(secret).execute();
  }

  async delete(userId: number): Promise<void> {
    await this.db.deleteFrom("tfa_secrets").where("user_id", "=", userId).execute();
  }
}

export const securityRepos = (handle: Handle<SecurityTables>) => ({
  phoneCodes: new PhoneCodes(handle),
  securityAnswers: new SecurityAnswers(handle),
  tfaSecrets: new TfaSecrets(handle),
});
export type SecurityRepos = ReturnType<typeof securityRepos>;
