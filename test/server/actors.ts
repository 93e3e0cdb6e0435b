/** Users, tokens and OAuth apps made through the domain, for tests of what the API cannot create. */
import { Scopes } from "../../src/contract/scopes";
import type { TestServer } from "./helpers";
import type { UserType } from "../../src/server/domain/records";

let n = 0;

export async function newUser(server: TestServer, options: { restricted?: boolean; userType?: UserType } = {}) {
  n += 1;
  return server.domain.users.create({ username: `user${n}`, email: `user${n}@example.com`, ...options });
}

export async function mintFor(server: TestServer, userId: number, scopes = "*", expiry: string | null = null): Promise<string> {
  const parsed = Scopes.parse(scopes);
  if (!parsed.ok) throw new Error(parsed.reason);
  return (await server.domain.tokens.mint({ userId, label: `test ${scopes}`, scopes: parsed.scopes, expiry })).token;
}

/** A new user and a token for them. */
export async function newActor(server: TestServer, options: { restricted?: boolean; userType?: UserType; scopes?: string } = {}) {
  const user = await newUser(server, options);
  return { user, token: await mintFor(server, user.id, options.scopes ?? "*") };
}

export async function bootstrapUserId(server: TestServer): Promise<number> {
  return (await server.domain.auth.authenticate(server.token!)).user.id;
}

/** An OAuth client authorized by `userId`: the app and its token. */
export async function oauthApp(server: TestServer, userId: number, scopes = "*", expiry: string | null = null) {
  const { client } = await server.domain.oauth.createClient({ label: "an app", website: "https://app.example.com" });
  const { app, token } = await server.domain.oauth.authorize({ userId, clientId: client.id, scopes, expiry });
  return { client, app, token };
}

export const at = (server: TestServer, offsetMs: number): string => new Date(server.clock.now().getTime() + offsetMs).toISOString().slice(0, 19);
