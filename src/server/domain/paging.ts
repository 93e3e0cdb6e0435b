/** Page math for every paginated collection. */
import type { Page, PageQuery } from "../../contract";
import type { Counted, Slice } from "../store/store";

const sliceOf = (query: PageQuery): Slice => ({ limit: query.page_size, offset: (query.page - 1) * query.page_size });

/** The number of pages `results` items make: an empty collection has one (empty) page, as upstream answers. */
const pagesOf = (query: PageQuery, results: number): number => Math.max(1, Math.ceil(results / query.page_size));

/**
 * The page a query asks for, or the last one when it asks past the end: upstream answers its last
 * page there (a page number past 2^53 included, which the query reads as 2^53-1), and says so in `page`.
 */
const answeredPage = (query: PageQuery, results: number): PageQuery => {
  const pages = pagesOf(query, results);
  return query.page > pages ? { ...query, page: pages } : query;
};

const pageAt = <T>(query: PageQuery, data: T[], results: number): Page<T> => ({ data, page: query.page, pages: pagesOf(query, results), results });

/** One page of a collection the store reads as a slice with its total (one read, no transaction needed; a second only past the end). */
export async function pageOf<T>(query: PageQuery, fetch: (slice: Slice) => Promise<Counted<T>>): Promise<Page<T>> {
  const { rows, total } = await fetch(sliceOf(query));
  const answered = answeredPage(query, total);
  if (answered.page === query.page) return pageAt(query, rows, total);
  // Past the end: the last page, read as a second slice (rare: no client pages past `pages` but by hand).
  const last = await fetch(sliceOf(answered));
  return pageAt(answered, last.rows, last.total);
}

/** One page of a collection already read whole. */
export function pageFrom<T>(query: PageQuery, all: T[]): Page<T> {
  const answered = answeredPage(query, all.length);
  const { limit, offset } = sliceOf(answered);
  return pageAt(answered, all.slice(offset, offset + limit), all.length);
}
