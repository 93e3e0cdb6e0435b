/** Page math for every paginated collection. */
import type { Page, PageQuery } from "../../contract";
import type { Counted, Slice } from "../store/store";

const sliceOf = (query: PageQuery): Slice => ({ limit: query.page_size, offset: (query.page - 1) * query.page_size });

/** An empty collection has one (empty) page, as upstream answers; a page past the end is empty but reports the true `pages` and `results`. */
const pageAt = <T>(query: PageQuery, data: T[], results: number): Page<T> => ({
  data,
  page: query.page,
  pages: Math.max(1, Math.ceil(results / query.page_size)),
  results,
});

/** One page of a collection the store reads as a slice with its total (one read, no transaction needed). */
export async function pageOf<T>(query: PageQuery, fetch: (slice: Slice) => Promise<Counted<T>>): Promise<Page<T>> {
  const { rows, total } = await fetch(sliceOf(query));
  return pageAt(query, rows, total);
}

/** One page of a collection already read whole. */
export function pageFrom<T>(query: PageQuery, all: T[]): Page<T> {
  const { limit, offset } = sliceOf(query);
  return pageAt(query, all.slice(offset, offset + limit), all.length);
}
