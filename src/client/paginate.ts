/**
 * Every item of a paginated list, as upstream clients read them: fetch page 1, read `pages`,
 * then fetch pages 2..pages in order. Pages are fetched lazily, one at a time, as the
 * iteration reaches them; stopping early fetches no more.
 *
 * The page count comes from page 1 (as linodego does). A list that changes while it is read can
 * therefore skip or repeat an item; callers that need a consistent view read it again.
 */
import type { Page } from "../contract/common";

export type PageFetcher<T> = (page: number) => Promise<Page<T>>;

export async function* paginate<T>(fetchPage: PageFetcher<T>): AsyncGenerator<T, void, undefined> {
  const first = await fetchPage(1);
  yield* first.data;
  for (let page = 2; page <= first.pages; page++) {
    const next = await fetchPage(page);
    yield* next.data;
  }
}

/** Collects an async iterable (a whole list) into an array. */
export async function listAll<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
