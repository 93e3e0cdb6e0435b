/** Page math for every paginated collection. */
import type { Page, PageQuery } from "../../contract";
import type { Slice } from "../store/store";

/**
 * One page of a collection: `count` gives the total, `fetch` the slice. A page past the end
 * is empty but still reports the true `pages` and `results`; an empty collection has one
 * (empty) page, as upstream answers.
 */
export async function pageOf<T>(
  query: PageQuery,
  count: () => Promise<number>,
  fetch: (slice: Slice) => Promise<T[]>,
): Promise<Page<T>> {
  const results = await count();
  const pages = Math.max(1, Math.ceil(results / query.page_size));
  const offset = (query.page - 1) * query.page_size;
  const data = offset < results ? await fetch({ limit: query.page_size, offset }) : [];
  return { data, page: query.page, pages, results };
}
