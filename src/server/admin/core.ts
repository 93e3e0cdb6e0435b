/**
 * The core admin endpoints: reset, clock, users (with grants and tokens), OAuth clients and
 * their tokens, the simulated SMS outbox, faults and request counters.
 */
import { z } from "zod";
import { GrantsResponse, OAuthScopesText, formatTimestamp, parseTimestamp, type GrantsResponse as Grants } from "../../contract";
import { Scopes } from "../../contract/scopes";
import { invalid, notFound } from "../domain/errors";
import { FIRST_WIRE_MS, LAST_WIRE_MS, LAST_WIRE_TIME } from "../domain/context";
import { parseInput } from "../http/errors";
import { pathId } from "../http/router";
import { MAX_ID } from "../store/store";
import { profileView } from "../areas/profile/routes";
import { DateTimeInput } from "../../contract";
import { IN_MEMORY, type AdminContext, type AdminModule, type AdminRouter } from "./context";
import { FaultInput } from "./faults";

const ResetBody = z.object({ fixtures: z.boolean().default(true) }).strict();
const ClockSet = z.object({ now: DateTimeInput }).strict();
const ClockAdvance = z
  .object({
    seconds: z
      .number()
      .int()
      .min(-10 * 365 * 86_400)
      .max(10 * 365 * 86_400),
  })
  .strict();
const TokenBody = z
  .object({
    label: z.string().min(1).max(100).default("admin namespace"),
    scopes: OAuthScopesText.default("*"),
    expiry: DateTimeInput.nullable().default(null),
  })
  .strict();
const UserBody = z
  .object({
    username: z.string().regex(/^[A-Za-z0-9_-]{3,32}$/, "must be 3 to 32 of A-Z a-z 0-9 _ -"),
    email: z.email().max(128),
    restricted: z.boolean().default(false),
    user_type: z.enum(["default", "proxy"]).default("default"),
    grants: GrantsResponse.optional(),
    /** Also mint a personal access token for the user. */
    token: TokenBody.optional(),
  })
  .strict();
const ClientBody = z
  .object({ label: z.string().min(1).max(512), website: z.string().max(512).default(""), thumbnail_url: z.string().nullable().default(null) })
  .strict();
const OAuthTokenBody = z
  .object({
    user_id: z.number().int().min(1).max(MAX_ID),
    client_id: z.number().int().min(1).max(MAX_ID),
    scopes: OAuthScopesText.default("*"),
    expiry: DateTimeInput.nullable().default(null),
  })
  .strict();
const SmsQuery = z.object({
  user_id: z
    .string()
    .regex(/^\d{1,10}$/)
    .transform(Number)
    .pipe(z.number().max(MAX_ID))
    .optional(),
});

/** The server's clock: read, set, advance, back to the real one. */
function registerClock(r: AdminRouter, ctx: AdminContext): void {
  const clockView = () => ({ now: formatTimestamp(ctx.clock.now()), offset_seconds: Math.round(ctx.clock.offset / 1000) });
  r.get("/clock", "The server's current time", async () => ({ body: clockView() }));
  r.put(
    "/clock",
    'Set the server\'s time ({"now": timestamp})',
    async (req) => {
      ctx.clock.set(parseTimestamp(parseInput(ClockSet, req.body).now));
      return { body: clockView() };
    },
    IN_MEMORY,
  );
  r.post(
    "/clock/advance",
    'Move the server\'s time ({"seconds": n}, may be negative)',
    async (req) => {
      const ms = parseInput(ClockAdvance, req.body).seconds * 1000;
      const at = ctx.clock.now().getTime() + ms;
      // The wire shows four-digit years only: a clock moved past them would stamp rows no answer can show.
      if (at > LAST_WIRE_MS || at < FIRST_WIRE_MS) throw invalid("seconds", `would move the clock outside 0000-01-01T00:00:00 to ${LAST_WIRE_TIME}`);
      ctx.clock.advance(ms);
      return { body: clockView() };
    },
    IN_MEMORY,
  );
  r.delete(
    "/clock",
    "Back to the real (base) clock",
    async () => {
      ctx.clock.resetOffset();
      return { body: clockView() };
    },
    IN_MEMORY,
  );
}

/** Users the API cannot create as the operator needs them: restricted, with grants, with tokens. */
function registerUsers(r: AdminRouter, ctx: AdminContext): void {
  const mint = async (userId: number, t: z.output<typeof TokenBody>) => {
    const scopes = Scopes.parse(t.scopes);
    if (!scopes.ok) throw invalid("scopes", scopes.reason);
    const { record, token } = await ctx.domain.tokens.mint({ userId, label: t.label, scopes: scopes.scopes, expiry: t.expiry });
    return { id: record.id, label: record.label, scopes: record.scopes, expiry: record.expiry, token };
  };
  const userView = async (id: number) => {
    const user = await ctx.store.users.get(id);
    if (user === undefined) throw notFound();
    const stored = await ctx.store.grants.get(id);
    return {
      id: user.id,
      ...profileView(user),
      grants: user.restricted && stored !== undefined ? (JSON.parse(stored) as Grants) : null,
    };
  };

  r.post("/users", "Create a user (restricted, with grants, optionally with a token)", async (req) => {
    const body = parseInput(UserBody, req.body);
    if (body.grants !== undefined && !body.restricted) throw invalid("grants", "grants apply to restricted users only");
    const user = await ctx.domain.users.create({ username: body.username, email: body.email, restricted: body.restricted, userType: body.user_type });
    if (body.grants !== undefined) await ctx.domain.users.setGrants(user.id, body.grants);
    const token = body.token === undefined ? null : await mint(user.id, body.token);
    return { body: { user: await userView(user.id), token } };
  });
  r.get("/users/:userId", "View a user and their grants", async (req) => ({ body: await userView(pathId(req, "userId")) }));
  r.put("/users/:userId/grants", "Replace a restricted user's grants", async (req) => {
    const id = pathId(req, "userId");
    const grants = parseInput(GrantsResponse, req.body);
    const user = await ctx.store.users.get(id);
    if (user === undefined) throw notFound();
    if (!user.restricted) throw invalid(null, "grants apply to restricted users only");
    await ctx.domain.users.setGrants(id, grants);
    return { body: await userView(id) };
  });
  r.post("/users/:userId/tokens", "Mint a personal access token for a user", async (req) => {
    const id = pathId(req, "userId");
    if ((await ctx.store.users.get(id)) === undefined) throw notFound();
    return { body: await mint(id, parseInput(TokenBody, req.body ?? {})) };
  });
}

/** OAuth clients and their authorizations, which the API leaves to a browser flow. */
function registerOAuth(r: AdminRouter, ctx: AdminContext): void {
  r.post("/oauth-clients", "Register an OAuth client; answers its secret once", async (req) => {
    const body = parseInput(ClientBody, req.body);
    const { client, secret } = await ctx.domain.oauth.createClient({ label: body.label, website: body.website, thumbnailUrl: body.thumbnail_url });
    return { body: { id: client.id, label: client.label, website: client.website, secret } };
  });
  r.post("/oauth-tokens", "A user authorizes a client: the authorized app and its OAuth token", async (req) => {
    const body = parseInput(OAuthTokenBody, req.body);
    const { app, token } = await ctx.domain.oauth.authorize({ userId: body.user_id, clientId: body.client_id, scopes: body.scopes, expiry: body.expiry });
    return { body: { app_id: app.id, user_id: app.user_id, client_id: app.client_id, scopes: app.scopes, expiry: app.expiry, token } };
  });
}

/** The simulated SMS outbox. */
function registerSms(r: AdminRouter, ctx: AdminContext): void {
  r.get("/sms", "Messages the simulated SMS sent (newest last; ?user_id= narrows)", async (req) => {
    const q = parseInput(SmsQuery, req.query, "Query");
    const data = ctx.domain.phone.outbox
      .filter((m) => q.user_id === undefined || m.userId === q.user_id)
      .map((m) => ({ user_id: m.userId, iso_code: m.isoCode, phone_number: m.phoneNumber, code: m.code, text: m.text, sent: m.sent }));
    return { body: { data } };
  });
  r.delete(
    "/sms",
    "Empty the SMS outbox",
    async () => {
      ctx.domain.phone.outbox.length = 0;
      return { body: {} };
    },
    IN_MEMORY,
  );
}

/** Injected faults. */
function registerFaults(r: AdminRouter, ctx: AdminContext): void {
  r.get("/faults", "List injected faults", async () => ({ body: { data: ctx.faults.list() } }));
  r.post(
    "/faults",
    "Inject a fault on a route pattern (status, latency_ms or drop, with a probability)",
    async (req) => ({ body: ctx.faults.add(parseInput(FaultInput, req.body)) }),
    IN_MEMORY,
  );
  r.delete(
    "/faults",
    "Clear every fault",
    async () => {
      ctx.faults.clear();
      return { body: {} };
    },
    IN_MEMORY,
  );
  r.delete(
    "/faults/:faultId",
    "Clear one fault",
    async (req) => {
      if (!ctx.faults.remove(pathId(req, "faultId"))) throw notFound();
      return { body: {} };
    },
    IN_MEMORY,
  );
}

/** Readiness and the request counters. */
function registerHealth(r: AdminRouter, ctx: AdminContext): void {
  r.get("/ready", "Readiness: 200 when the store can take a write, 503 saying why not (read-only, out of space)", async () => {
    const store = await ctx.store.writable();
    return { status: store.writable ? 200 : 503, body: { ready: store.writable, store } };
  });

  r.get("/counters", "Requests per route and status since start, reset or clearing", async () => ({ body: { data: ctx.counters.list() } }));
  r.delete(
    "/counters",
    "Clear the request counters",
    async () => {
      ctx.counters.clear();
      return { body: {} };
    },
    IN_MEMORY,
  );
}

export const coreAdmin: AdminModule = {
  name: "core",
  register(r, ctx) {
    r.post(
      "/reset",
      'Wipe the store to a fresh bootstrap (fixtures re-applied unless {"fixtures":false}); answers the new token',
      async (req) => {
        const body = parseInput(ResetBody, req.body ?? {});
        return { body: await ctx.reset({ fixtures: body.fixtures }) };
      },
      // The answer is the new token, which cannot fail once minted.
      "the wipe cannot run inside a transaction, and the reset also clears what is kept in memory",
    );
    registerClock(r, ctx);
    registerUsers(r, ctx);
    registerOAuth(r, ctx);
    registerSms(r, ctx);
    registerFaults(r, ctx);
    registerHealth(r, ctx);
  },
};
