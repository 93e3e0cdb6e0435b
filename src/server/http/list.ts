/**
 * Every paginated collection answers through `listAnswer` (usually via `Router.list`): the
 * shared `page`/`page_size` rules (25..500, default 100) and, for a list that names its
 * filterable fields, upstream's `X-Filter` header (filter and `+order_by`/`+order`).
 *
 * Without a filter the list's own fetch pages in the store. With one, a list that has a `filtered`
 * fetch asks the store to filter, order and page (X-Filter compiled to SQL, `src/server/store/filter-sql.ts`);
 * when it has none, or that filter has no exact SQL, the helper reads every item (in pages of 500),
 * filters and sorts the contract views, then cuts the asked page. Either way the envelope's `results`
 * and `pages` count the filtered items, the same answer.
 *
 * Opting in (one line, in a route module):
 *   r.list("/account/events", "events:read_only",
 *          { item: Event, filter: { id: "number", action: "string", created: "timestamp", read: "boolean",
 *                                   "entity.id": "number", "entity.type": "string" } },
 *          async ({ actor }, query) => pageView(await domain.events.list(actor, query), eventView));
 */
import { z } from "zod";
import { PAGE_SIZE, PageQuery, paginated, type Page } from "../../contract";
import { applyFilter, parseFilter, type Filter, type FilterFields } from "../domain/filter";
import { pageFrom } from "../domain/paging";
import { parseInput } from "./errors";
import type { RememberedAnswers } from "./remembered";
import type { Answer, RouteContext } from "./answer";

export interface ListSpec<S extends z.ZodType> {
  /** The contract schema of one item; the answer is `paginated(item)`. */
  item: S;
  /** Filterable fields (dotted paths) and their types; omitted: `X-Filter` is refused. */
  filter?: FilterFields;
  /** One line for the OpenAPI document. */
  summary?: string;
  /**
   * Opt-in, for a list whose page depends on nothing but the caller's user and what this mark
   * covers: a value that stays the same for as long as no page of this user can change (a
   * repository's view of `Handle.tablesMark`, with whatever else the page reads, such as the
   * clock's window, written into it), or undefined when unknown. While it stays, a page already
   * answered is answered again as the same JSON (see `./remembered.ts`).
   */
  mark?: () => string | undefined;
  /**
   * The page of the items `filter` keeps, in its order, filtered and paged by the store; undefined
   * when this filter has no exact SQL (the helper then filters in memory, as without this fetch).
   */
  filtered?: FilteredFetch<S>;
}

export type ListFetch<S extends z.ZodType> = (ctx: RouteContext, query: PageQuery) => Promise<Page<z.input<S>>>;
export type FilteredFetch<S extends z.ZodType> = (ctx: RouteContext, query: PageQuery, filter: Filter) => Promise<Page<z.input<S>> | undefined>;

/**
 * `PageQuery` parsed, by the two texts it reads (it ignores other parameters): zod took a tenth
 * of a remembered page's CPU time re-parsing the same `page_size=100`. Only answers that parse
 * are kept (errors are rare and built afresh); the few distinct pairs clients send fit easily.
 */
const pageQueries = new Map<string, PageQuery>();
function pageQueryOf(query: unknown): PageQuery {
  const { page, page_size } = (query ?? {}) as Record<string, unknown>;
  const cacheable = (v: unknown) => v === undefined || (typeof v === "string" && v.length <= 12);
  if (!cacheable(page) || !cacheable(page_size)) return parseInput(PageQuery, query, "Query");
  const key = JSON.stringify([page, page_size]); // an absent one is null, a text is quoted
  let parsed = pageQueries.get(key);
  if (parsed === undefined) {
    parsed = Object.freeze(parseInput(PageQuery, query, "Query"));
    if (pageQueries.size >= 256) pageQueries.clear();
    pageQueries.set(key, parsed);
  }
  return parsed;
}

const pageSchemas = new WeakMap<z.ZodType, z.ZodType>();
const pageSchemaOf = (item: z.ZodType): z.ZodType => {
  let s = pageSchemas.get(item);
  if (s === undefined) pageSchemas.set(item, (s = paginated(item)));
  return s;
};

/**
 * `remembered`: where a list with a `mark` keeps its pages. Answers are serialized here (as
 * Fastify would), so a remembered page and a fresh one are the same bytes.
 */
export async function listAnswer<S extends z.ZodType>(
  ctx: RouteContext,
  spec: ListSpec<S>,
  fetch: ListFetch<S>,
  remembered?: RememberedAnswers,
): Promise<Answer> {
  const query = pageQueryOf(ctx.req.query);
  const filter = parseFilter(ctx.req.headers["x-filter"], spec.filter ?? {});
  const schema = pageSchemaOf(spec.item);
  if (filter === null) {
    // The page is kept only when the mark read before it is still the mark after it: a write
    // (or a clock's tick) meanwhile may or may not show in the page, so neither mark may hold it.
    const mark = remembered && spec.mark?.();
    const key = mark === undefined ? "" : `${ctx.actor.user.id}/${query.page}/${query.page_size}`;
    const known = mark === undefined ? undefined : remembered?.get(key, mark);
    if (known !== undefined) return { status: 200, json: known };
    const json = JSON.stringify(schema.parse(await fetch(ctx, query)));
    if (mark !== undefined && spec.mark?.() === mark) remembered?.set(key, mark, json);
    return { status: 200, json };
  }

  const inStore = await spec.filtered?.(ctx, query, filter);
  if (inStore !== undefined) return { status: 200, body: schema.parse(inStore) };
  const all: Array<z.input<S>> = [];
  for (let page = 1; ; page++) {
    const slice = await fetch(ctx, { page, page_size: PAGE_SIZE.max });
    all.push(...slice.data);
    if (page >= slice.pages || slice.data.length === 0) break;
  }
  return { status: 200, body: schema.parse(pageFrom(query, applyFilter(all, filter))) };
}
