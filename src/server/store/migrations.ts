/**
 * Schema migrations, in code (no files to ship beside the bundle), applied by Kysely's
 * `Migrator`. They use Kysely's schema builder with portable types only (integer, text), so
 * the Postgres store can run the same list; the one dialect difference, how an integer id is
 * generated, is a parameter. Append new migrations; never edit an applied one.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider, type CreateTableBuilder } from "kysely";

export type SqlFlavor = "sqlite" | "postgres";

/** `id`: an integer key the database assigns and never reuses. */
function withId<T extends string>(table: CreateTableBuilder<T, never>, flavor: SqlFlavor): CreateTableBuilder<T, "id"> {
  return flavor === "sqlite"
    ? table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    : table.addColumn("id", "integer", (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

export function migrations(flavor: SqlFlavor): Record<string, Migration> {
  return {
    "0001_profile_sshkeys": {
      async up(db: Kysely<unknown>) {
        await withId(db.schema.createTable("accounts"), flavor)
          .addColumn("euuid", "text", (c) => c.notNull().unique())
          .addColumn("active_since", "text", (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable("users"), flavor)
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("username", "text", (c) => c.notNull().unique())
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("restricted", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("authentication_type", "text", (c) => c.notNull())
          .addColumn("authorized_keys", "text")
          .addColumn("email_notifications", "integer", (c) => c.notNull())
          .addColumn("ip_whitelist_enabled", "integer", (c) => c.notNull())
          .addColumn("lish_auth_method", "text", (c) => c.notNull())
          .addColumn("timezone", "text", (c) => c.notNull())
          .addColumn("two_factor_auth", "integer", (c) => c.notNull())
          .addColumn("verified_phone_number", "text")
          .addColumn("referral_code", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable("tokens"), flavor)
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("label", "text", (c) => c.notNull())
          .addColumn("scopes", "text", (c) => c.notNull())
          .addColumn("token_hash", "text", (c) => c.notNull().unique())
          .addColumn("token_prefix", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("expiry", "text")
          .addColumn("revoked", "text")
          .execute();
        await db.schema.createIndex("tokens_user_id").on("tokens").column("user_id").execute();

        await withId(db.schema.createTable("ssh_keys"), flavor)
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("label", "text", (c) => c.notNull())
          .addColumn("ssh_key", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("ssh_keys_user_id").on("ssh_keys").column("user_id").execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of ["ssh_keys", "tokens", "users", "accounts"]) await db.schema.dropTable(table).execute();
      },
    },
    "0002_profile_area": {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable("users").addColumn("user_type", "text", (c) => c.notNull().defaultTo("default")).execute();
        await db.schema.alterTable("users").addColumn("sms_opt_in", "integer", (c) => c.notNull().defaultTo(0)).execute();

        await withId(db.schema.createTable("oauth_clients"), flavor)
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("label", "text", (c) => c.notNull())
          .addColumn("secret_hash", "text", (c) => c.notNull())
          .addColumn("website", "text", (c) => c.notNull())
          .addColumn("thumbnail_url", "text")
          .addColumn("created", "text", (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable("oauth_apps"), flavor)
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("client_id", "integer", (c) => c.notNull().references("oauth_clients.id").onDelete("cascade"))
          .addColumn("scopes", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("expiry", "text")
          .addColumn("revoked", "text")
          .execute();
        await db.schema.createIndex("oauth_apps_user_id").on("oauth_apps").column("user_id").execute();

        await db.schema.alterTable("tokens").addColumn("app_id", "integer", (c) => c.references("oauth_apps.id").onDelete("cascade")).execute();

        await withId(db.schema.createTable("trusted_devices"), flavor)
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("expiry", "text", (c) => c.notNull())
          .addColumn("last_authenticated", "text", (c) => c.notNull())
          .addColumn("last_remote_addr", "text", (c) => c.notNull())
          .addColumn("user_agent", "text", (c) => c.notNull())
          .addColumn("revoked", "text")
          .execute();
        await db.schema.createIndex("trusted_devices_user_id").on("trusted_devices").column("user_id").execute();

        await withId(db.schema.createTable("logins"), flavor)
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("datetime", "text", (c) => c.notNull())
          .addColumn("ip", "text", (c) => c.notNull())
          .addColumn("restricted", "integer", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("username", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("logins_user_id_datetime").on("logins").columns(["user_id", "datetime"]).execute();

        await db.schema
          .createTable("phone_codes")
          .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
          .addColumn("iso_code", "text", (c) => c.notNull())
          .addColumn("phone_number", "text", (c) => c.notNull())
          .addColumn("code", "text", (c) => c.notNull())
          .addColumn("sent", "text", (c) => c.notNull())
          .addColumn("expiry", "text", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("security_answers")
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("question_id", "integer", (c) => c.notNull())
          .addColumn("response", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("security_answers_pk", ["user_id", "question_id"])
          .execute();

        await db.schema
          .createTable("tfa_secrets")
          .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
          .addColumn("secret", "text", (c) => c.notNull())
          .addColumn("expiry", "text", (c) => c.notNull())
          .addColumn("confirmed", "text")
          .addColumn("scratch_hash", "text")
          .execute();

        await db.schema
          .createTable("preferences")
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("client_key", "integer", (c) => c.notNull())
          .addColumn("body", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("preferences_pk", ["user_id", "client_key"])
          .execute();

        await db.schema
          .createTable("grants")
          .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
          .addColumn("body", "text", (c) => c.notNull())
          .execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of ["grants", "preferences", "tfa_secrets", "security_answers", "phone_codes", "logins", "trusted_devices"]) {
          await db.schema.dropTable(table).execute();
        }
        await db.schema.alterTable("tokens").dropColumn("app_id").execute();
        for (const table of ["oauth_apps", "oauth_clients"]) await db.schema.dropTable(table).execute();
        await db.schema.alterTable("users").dropColumn("sms_opt_in").execute();
        await db.schema.alterTable("users").dropColumn("user_type").execute();
      },
    },
  };
}

/**
 * Brings the schema to the latest migration. A database migrated by a newer build (one
 * that has migrations this build does not know) is refused rather than guessed at.
 */
export async function migrateToLatest(db: Kysely<unknown>, flavor: SqlFlavor): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(flavor) };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `store migration ${failed} failed: ${why}` : `store migration failed: ${why}`);
  }
}
