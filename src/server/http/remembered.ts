/**
 * Answers already shaped and serialized, remembered under a key for as long as a mark from
 * the store stays the same (see `Handle.tablesMark` in `../store/store.ts`): asked again with an unchanged mark, the
 * same bytes are the right answer, without reading, checking against the contract and
 * serializing them again. They are kept encoded: turning a 40 KB page's text into bytes on each
 * answer cost about a third of the latency two clients listing events added to another request. An
 * entry whose mark moved on is simply replaced; past the size bound (bytes kept), the oldest go first.
 */
export class RememberedAnswers {
  private readonly entries = new Map<string, { mark: string; bytes: Buffer }>();
  private size = 0;

  constructor(private readonly maxSize = 8 * 1024 * 1024) {}

  get(key: string, mark: string): Buffer | undefined {
    const entry = this.entries.get(key);
    return entry?.mark === mark ? entry.bytes : undefined;
  }

  set(key: string, mark: string, json: string): void {
    this.forget(key);
    const bytes = Buffer.from(json);
    this.entries.set(key, { mark, bytes });
    this.size += bytes.length;
    for (const oldest of this.entries.keys()) {
      if (this.size <= this.maxSize) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.size -= entry.bytes.length;
    this.entries.delete(key);
  }
}
