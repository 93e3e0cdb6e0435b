/** What a route's handler is given and what it answers (the router runs it; lists and views build it). */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Actor } from "../domain/context";

/** A shaped answer: status and a body already parsed by its contract schema, or that body as JSON text. */
export type Answer = { status: number; body: unknown } | { status: number; json: string | Buffer };

export interface RouteContext {
  req: FastifyRequest;
  reply: FastifyReply;
  /** The caller; reading it on a public route is a programming error. */
  readonly actor: Actor;
}
