/**
 * Answers in contract shapes (each area's routes turn its records into views). Every answer
 * goes through `answer`, which parses the body with its contract schema: a body the contract
 * would not accept is a server bug (500), never something a client sees; on a write it is shaped inside the
 * request's transaction (`Router.writesIn`), so that 500 also takes back what the write stored.
 */
import type { z } from "zod";
import type { Page } from "../../contract";
import type { Answer } from "./answer";

export function answer<S extends z.ZodType>(schema: S, value: z.input<S>, status = 200): Answer {
  return { status, body: schema.parse(value) };
}

export const pageView = <R, V>(page: Page<R>, view: (record: R) => V): Page<V> => ({ ...page, data: page.data.map(view) });
