/**
 * The one catalogue of bad credentials the auth suites use: every way a request's credentials fail
 * (no or another scheme, a malformed, unknown, overlong or doubled token, a revoked or expired one,
 * one of a revoked OAuth app), tried on every operation the router's route table (the OpenAPI
 * document it publishes) marks as needing a token. Each suite takes the operations of its areas.
 */
import { hashToken } from "../../src/server/auth/credentials";
import { call, errorBody, type TestServer } from "./helpers";
import { at, bootstrapUserId, mintFor, oauthApp } from "./actors";

export const INVALID_TOKEN = errorBody("Invalid Token");

/** A kind of bad credential and how to make its headers on `server`. */
export interface BadCredential {
  readonly kind: string;
  readonly headers: (server: TestServer) => Promise<Record<string, string>>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const BAD_CREDENTIALS: readonly BadCredential[] = [
  { kind: "no Authorization header", headers: async () => ({}) },
  { kind: "the Basic scheme", headers: async () => ({ authorization: "Basic YWRtaW46cGFzcw==" }) },
  { kind: "the token in another scheme", headers: async (s) => ({ authorization: `Basic ${s.token}` }) },
  { kind: "Bearer without a token", headers: async () => ({ authorization: "Bearer" }) },
  { kind: "Bearer with only spaces", headers: async () => ({ authorization: "Bearer   " }) },
  { kind: "the token without a scheme", headers: async (s) => ({ authorization: s.token! }) },
  { kind: "an unknown token", headers: async () => bearer("f".repeat(64)) },
  { kind: "a token with characters no bearer token has", headers: async () => bearer("not a token!") },
  { kind: "two tokens", headers: async (s) => ({ authorization: `Bearer ${s.token} ${s.token}` }) },
  { kind: "an overlong token", headers: async () => bearer("a".repeat(300)) },
  {
    kind: "a revoked token",
    headers: async (s) => {
      const userId = await bootstrapUserId(s);
      const token = await mintFor(s, userId);
      const record = await s.store.tokens.findByHash(hashToken(token));
      await s.domain.tokens.revoke({ user: (await s.store.users.get(userId))! }, record!.id);
      return bearer(token);
    },
  },
  {
    kind: "an expired token",
    headers: async (s) => {
      const token = await mintFor(s, await bootstrapUserId(s), "*", at(s, 1000));
      s.clock.advance(1000);
      return bearer(token);
    },
  },
  {
    kind: "a token of a revoked app",
    headers: async (s) => {
      const { app, token } = await oauthApp(s, await bootstrapUserId(s));
      await s.domain.oauth.revokeApp(await s.domain.auth.authenticate(s.token!), app.id);
      return bearer(token);
    },
  },
];

export interface Operation {
  readonly method: string;
  /** With each path parameter filled in (authentication comes before the path is looked at). */
  readonly path: string;
}

/** Every operation the server's route table marks as needing a token, path parameters filled with `1`. */
export async function protectedOperations(server: TestServer): Promise<Operation[]> {
  const doc = (await call(server, "GET", "/openapi.json", { token: null })).body as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods))
      if ((op.security ?? []).length > 0) ops.push({ method: method.toUpperCase(), path: path.replace(/\{\w+\}/g, "1") });
  return ops;
}

/** Each `kind method path` of `ops` × the catalogue whose answer is not 401 Invalid Token (empty when all are refused). */
export async function unrefused(server: TestServer, ops: readonly Operation[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const credential of BAD_CREDENTIALS) {
    const headers = await credential.headers(server);
    for (const op of ops) {
      const res = await call(server, op.method, op.path, { token: null, headers });
      if (res.status !== 401 || JSON.stringify(res.body) !== JSON.stringify(INVALID_TOKEN))
        wrong.push(`${credential.kind}: ${op.method} ${op.path} answered ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return wrong;
}

/** Which auth suite covers an operation: the profile area, the OAuth/tag/event/transfer areas, or the rest of the account. */
export function suiteOf(path: string): "profile" | "oauth-tags-events" | "account" {
  if (path.startsWith("/profile")) return "profile";
  if (/^\/(account\/(events|oauth-clients|entity-transfers)|tags)(\/|$)/.test(path)) return "oauth-tags-events";
  return "account";
}
