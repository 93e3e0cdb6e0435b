/** Page math for every paginated collection. */
import type { Page, PageQuery } from "../../contract";
import type { Counted, Slice } from "../store/store";

const sliceOf = (query: PageQuery): Slice => ({ limit: query.page_size, offset: (query.page - 1) * query.page_size });

/** An empty collection has one (empty) page, as upstream answers. */
const pageAt = <T>(query: PageQuery, data: T[], results: number): Page<T> => ({
  data,
  page: query.page,
  pages: Math.max(1, Math.ceil(results / query.page_size)),
  results,
});

/**
 * One page of a collection: `count` gives the total, `fetch` the slice. A page past the end
 * is empty but still reports the true `pages` and `results`.
 */
export async function pageOf<T>(
  query: PageQuery,
  count: () => Promise<number>,
  fetch: (slice: Slice) => Promise<T[]>,
): Promise<Page<T>> {
  const results = await count();
  const slice = sliceOf(query);
  return pageAt(query, slice.offset < results ? await fetch(slice) : [], results);
}

/** `pageOf` over a list that reads its slice and total together (one read, no transaction needed). */
export async function pageOfCounted<T>(query: PageQuery, fetch: (slice: Slice) => Promise<Counted<T>>): Promise<Page<T>> {
  const { rows, total } = await fetch(sliceOf(query));
  return pageAt(query, rows, total);
}
