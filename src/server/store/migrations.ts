/**
 * Schema migrations, in code (no files to ship beside the bundle), applied by Kysely's
 * `Migrator`. They use Kysely's schema builder with portable types only (integer, text), so
 * the Postgres store can run the same list; the one dialect difference, how an integer id is
 * generated, is a parameter. Append new migrations; never edit an applied one.
 */
import { randomBytes } from "node:crypto";
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type CreateTableBuilder } from "kysely";
import { MARKED_TABLES, TABLE_MARKS, type TableMarksTables } from "./throughput";

export type SqlFlavor = "sqlite" | "postgres";

/** `id`: an integer key the database assigns and never reuses. */
function withId<T extends string>(table: CreateTableBuilder<T, never>, flavor: SqlFlavor): CreateTableBuilder<T, "id"> {
  return flavor === "sqlite"
    ? table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    : table.addColumn("id", "integer", (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

const LISTS_BY_ACCOUNT = ["invoices", "maintenance", "notifications"] as const;

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
        await db.schema
          .alterTable("users")
          .addColumn("user_type", "text", (c) => c.notNull().defaultTo("default"))
          .execute();
        await db.schema
          .alterTable("users")
          .addColumn("sms_opt_in", "integer", (c) => c.notNull().defaultTo(0))
          .execute();

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

        await db.schema
          .alterTable("tokens")
          .addColumn("app_id", "integer", (c) => c.references("oauth_apps.id").onDelete("cascade"))
          .execute();

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
    "0003_account_billing": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("account_billing")
          .addColumn("account_id", "integer", (c) => c.primaryKey().references("accounts.id").onDelete("cascade"))
          .addColumn("parent_account_id", "integer", (c) => c.references("accounts.id").onDelete("cascade"))
          .addColumn("body", "text", (c) => c.notNull())
          .addColumn("canceled", "text")
          .addColumn("card_declines", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex("account_billing_parent").on("account_billing").column("parent_account_id").execute();

        await withId(db.schema.createTable("payment_methods"), flavor)
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("type", "text", (c) => c.notNull())
          .addColumn("is_default", "integer", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("data", "text", (c) => c.notNull())
          .addColumn("deleted", "text")
          .execute();

        for (const table of ["invoices", "maintenance", "notifications"]) {
          let t = withId(db.schema.createTable(table), flavor)
            .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
            .addColumn("body", "text", (c) => c.notNull());
          if (table === "notifications") t = t.addColumn("resolved", "text");
          await t.execute();
        }
        await withId(db.schema.createTable("invoice_items"), flavor)
          .addColumn("invoice_id", "integer", (c) => c.notNull().references("invoices.id").onDelete("cascade"))
          .addColumn("body", "text", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("region_availability")
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("available", "text", (c) => c.notNull())
          .addColumn("unavailable", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("region_availability_pk", ["account_id", "region"])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of ["region_availability", "invoice_items", "invoices", "maintenance", "notifications", "payment_methods", "account_billing"]) {
          await db.schema.dropTable(table).execute();
        }
      },
    },
    "0004_oauth_tags_events": {
      async up(db: Kysely<unknown>) {
        const clients = db.schema.alterTable("oauth_clients");
        await clients.addColumn("public_id", "text", (c) => c.notNull().defaultTo("")).execute();
        await clients.addColumn("public", "integer", (c) => c.notNull().defaultTo(0)).execute();
        await clients.addColumn("redirect_uri", "text", (c) => c.notNull().defaultTo("")).execute();
        await clients.addColumn("status", "text", (c) => c.notNull().defaultTo("active")).execute();
        await clients.addColumn("deleted", "text").execute();
        // Clients registered before this migration get a public id too.
        // The table as it stands at this migration (the areas' types describe it as it is now).
        const atThisPoint = db.withTables<{ oauth_clients: { id: number; public_id: string } }>();
        const old = await atThisPoint.selectFrom("oauth_clients").select("id").execute();
        for (const { id } of old) {
          await atThisPoint
            .updateTable("oauth_clients")
            .set({ public_id: randomBytes(10).toString("hex") })
            .where("id", "=", id)
            .execute();
        }
        await db.schema.createIndex("oauth_clients_public_id").on("oauth_clients").column("public_id").execute();

        await db.schema
          .createTable("oauth_thumbnails")
          .addColumn("client_id", "integer", (c) => c.primaryKey().references("oauth_clients.id").onDelete("cascade"))
          .addColumn("content_type", "text", (c) => c.notNull())
          .addColumn("data", "text", (c) => c.notNull())
          .execute();

        await withId(db.schema.createTable("events"), flavor)
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("user_id", "integer")
          .addColumn("username", "text")
          .addColumn("action", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("duration", "integer", (c) => c.notNull())
          .addColumn("entity", "text")
          .addColumn("entity_type", "text")
          .addColumn("entity_id", "text")
          .addColumn("secondary_entity", "text")
          .addColumn("message", "text")
          .addColumn("percent_complete", "integer")
          .addColumn("rate", "text")
          .addColumn("time_remaining", "text")
          .execute();
        await db.schema.createIndex("events_account_id_created").on("events").columns(["account_id", "created"]).execute();
        await db.schema
          .createTable("event_reads")
          .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("event_id", "integer", (c) => c.notNull().references("events.id").onDelete("cascade"))
          .addPrimaryKeyConstraint("event_reads_pk", ["user_id", "event_id"])
          .execute();
        await db.schema
          .createTable("event_seen")
          .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
          .addColumn("up_to", "integer", (c) => c.notNull())
          .execute();

        for (const table of ["compute_instances", "domains", "volumes", "nodebalancers"]) {
          await withId(db.schema.createTable(table), flavor)
            .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
            .addColumn("label", "text", (c) => c.notNull())
            .addColumn("created", "text", (c) => c.notNull())
            .addColumn("updated", "text", (c) => c.notNull())
            .addColumn("body", "text", (c) => c.notNull())
            .execute();
        }
        await withId(db.schema.createTable("tags"), flavor)
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("label", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addUniqueConstraint("tags_account_label", ["account_id", "label"])
          .execute();
        await db.schema
          .createTable("tag_links")
          .addColumn("tag_id", "integer", (c) => c.notNull().references("tags.id").onDelete("cascade"))
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("object_id", "integer", (c) => c.notNull())
          .addPrimaryKeyConstraint("tag_links_pk", ["tag_id", "kind", "object_id"])
          .execute();

        await withId(db.schema.createTable("entity_transfers"), flavor)
          .addColumn("token", "text", (c) => c.notNull().unique())
          .addColumn("account_id", "integer", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
          .addColumn("receiver_account_id", "integer")
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("entities", "text", (c) => c.notNull())
          .addColumn("created", "text", (c) => c.notNull())
          .addColumn("updated", "text", (c) => c.notNull())
          .addColumn("expiry", "text", (c) => c.notNull())
          .execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of [
          "entity_transfers",
          "tag_links",
          "tags",
          "nodebalancers",
          "volumes",
          "domains",
          "compute_instances",
          "event_seen",
          "event_reads",
          "events",
          "oauth_thumbnails",
        ]) {
          await db.schema.dropTable(table).execute();
        }
        await db.schema.dropIndex("oauth_clients_public_id").execute();
        for (const column of ["deleted", "status", "redirect_uri", "public", "public_id"]) {
          await db.schema.alterTable("oauth_clients").dropColumn(column).execute();
        }
      },
    },
    "0005_table_marks": {
      // Postgres only (see ./throughput/table-marks.ts): SQLite counts its writes in process.
      async up(db: Kysely<unknown>) {
        if (flavor !== "postgres") return;
        await db.schema
          .createTable(TABLE_MARKS)
          .addColumn("name", "text", (c) => c.primaryKey())
          .addColumn("n", "bigint", (c) => c.notNull())
          .execute();
        await db
          .withTables<TableMarksTables>()
          .insertInto(TABLE_MARKS)
          .values(MARKED_TABLES.map((name) => ({ name, n: 0 })))
          .execute();
        await sql`create function mgmt_bump_table_mark() returns trigger language plpgsql as $$
          begin
            update ${sql.table(TABLE_MARKS)} set n = n + 1 where name = TG_TABLE_NAME;
            return null;
          end $$`.execute(db);
        for (const table of MARKED_TABLES) {
          await sql`create trigger ${sql.id(`${table}_mark`)} after insert or update or delete or truncate on ${sql.table(table)}
            for each statement execute function mgmt_bump_table_mark()`.execute(db);
        }
      },
      async down(db: Kysely<unknown>) {
        if (flavor !== "postgres") return;
        for (const table of MARKED_TABLES) await sql`drop trigger ${sql.id(`${table}_mark`)} on ${sql.table(table)}`.execute(db);
        await sql`drop function mgmt_bump_table_mark()`.execute(db);
        await db.schema.dropTable(TABLE_MARKS).execute();
      },
    },
    // The events list pages newest first by id within an account: with this index a page reads its rows in order and
    // stops, instead of sorting the whole 90-day window (a page at 50,000 events took 5x the one at 2,000).
    "0006_events_by_account_id": {
      async up(db: Kysely<unknown>) {
        await db.schema.createIndex("events_account_id_id").on("events").columns(["account_id", "id"]).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex("events_account_id_id").execute();
      },
    },
    // The account's invoices, maintenance and notifications are paged by id in SQL; these let a page read its rows in
    // order and stop, rather than sort the account's every row.
    "0007_lists_by_account_id": {
      async up(db: Kysely<unknown>) {
        for (const table of LISTS_BY_ACCOUNT) await db.schema.createIndex(`${table}_account_id_id`).on(table).columns(["account_id", "id"]).execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of LISTS_BY_ACCOUNT) await db.schema.dropIndex(`${table}_account_id_id`).execute();
      },
    },
    // X-Filter's fields of invoices and maintenance, and the `until` a notification shows while, were inside the JSON
    // bodies: as columns (written with each body, copied here from the stored ones) the store filters and pages by them.
    "0008_list_fields_as_columns": {
      async up(db: Kysely<unknown>) {
        const real = flavor === "postgres" ? "double precision" : "real";
        await db.schema.alterTable("invoices").addColumn("billing_source", "text").execute();
        await db.schema.alterTable("invoices").addColumn("date", "text").execute();
        await db.schema.alterTable("invoices").addColumn("label", "text").execute();
        await db.schema.alterTable("invoices").addColumn("total", real).execute();
        for (const column of ["status", "type", "when_at", "entity_id"]) await db.schema.alterTable("maintenance").addColumn(column, "text").execute();
        await db.schema.alterTable("notifications").addColumn("until", "text").execute();
        const atThisPoint = db.withTables<{
          invoices: { id: number; body: string; billing_source: string | null; date: string | null; label: string | null; total: number | null };
          maintenance: { id: number; body: string; status: string | null; type: string | null; when_at: string | null; entity_id: string | null };
          notifications: { id: number; body: string; until: string | null };
        }>();
        // The bodies' fields as they were written then (the repositories write the same from now on).
        type Body = Record<string, unknown> & { entity?: { id?: unknown } | null };
        const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
        for (const row of await atThisPoint.selectFrom("invoices").select(["id", "body"]).execute()) {
          const b = JSON.parse(row.body) as Body;
          const total = typeof b.total === "number" ? b.total : null;
          await atThisPoint
            .updateTable("invoices")
            .set({ billing_source: text(b.billing_source), date: text(b.date), label: text(b.label), total })
            .where("id", "=", row.id)
            .execute();
        }
        for (const row of await atThisPoint.selectFrom("maintenance").select(["id", "body"]).execute()) {
          const b = JSON.parse(row.body) as Body;
          const entityId = b.entity?.id === undefined || b.entity.id === null ? null : String(b.entity.id as string | number);
          await atThisPoint
            .updateTable("maintenance")
            .set({ status: text(b.status), type: text(b.type), when_at: text(b.when), entity_id: entityId })
            .where("id", "=", row.id)
            .execute();
        }
        for (const row of await atThisPoint.selectFrom("notifications").select(["id", "body"]).execute()) {
          await atThisPoint
            .updateTable("notifications")
            .set({ until: text((JSON.parse(row.body) as Body).until) })
            .where("id", "=", row.id)
            .execute();
        }
      },
      async down(db: Kysely<unknown>) {
        for (const column of ["billing_source", "date", "label", "total"]) await db.schema.alterTable("invoices").dropColumn(column).execute();
        for (const column of ["status", "type", "when_at", "entity_id"]) await db.schema.alterTable("maintenance").dropColumn(column).execute();
        await db.schema.alterTable("notifications").dropColumn("until").execute();
      },
    },
    // Postgres: the events list's count is an index-only scan of `events_account_id_created` only once vacuum has
    // marked the pages all-visible, and its page walks `events_account_id_id` only once the planner's statistics know
    // the account's rows (with none, it chose a bitmap scan and a sort of the whole window: 37 ms at 50,000 events
    // against 0.05 ms). The defaults wait for a fifth of the table to change; an append-mostly feed gets both sooner.
    "0009_events_vacuumed_sooner": {
      async up(db: Kysely<unknown>) {
        if (flavor !== "postgres") return;
        await sql`alter table events set (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01)`.execute(db);
      },
      async down(db: Kysely<unknown>) {
        if (flavor !== "postgres") return;
        await sql`alter table events reset (autovacuum_vacuum_insert_scale_factor, autovacuum_analyze_scale_factor)`.execute(db);
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
