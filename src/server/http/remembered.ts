/**
 * Answers already shaped and serialized, remembered under a key for as long as a mark from
 * the store stays the same (see `Store.tablesMark`): asked again with an unchanged mark, the
 * same bytes are the right answer, without reading, checking against the contract and
 * serializing them again. An entry whose mark moved on is simply replaced; the oldest go first
 * past the bound.
 */
export class RememberedAnswers {
  private readonly entries = new Map<string, { mark: string; json: string }>();

  constructor(private readonly max = 256) {}

  get(key: string, mark: string): string | undefined {
    const entry = this.entries.get(key);
    return entry?.mark === mark ? entry.json : undefined;
  }

  set(key: string, mark: string, json: string): void {
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { mark, json });
  }
}
