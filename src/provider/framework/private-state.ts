/**
 * A resource's private state: bytes the engine stores beside the state, hands back on the next
 * read, plan and apply, and never shows (terraform-plugin-framework's `Private`, keyed JSON).
 * The provider keeps in it what it needs to read well but the user has no business planning:
 * e.g. since when a tag's objects are known.
 */
export class PrivateState {
  #changed = false;

  private constructor(private readonly data: Record<string, unknown>) {}

  /** What the engine sent; anything that is not a JSON object (none, or written by another provider version) is empty. */
  static decode(bytes: Uint8Array | undefined): PrivateState {
    if (!bytes || bytes.length === 0) return new PrivateState({});
    try {
      const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
      return new PrivateState(parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {});
    } catch {
      return new PrivateState({});
    }
  }

  get(key: string): unknown {
    return this.data[key];
  }

  set(key: string, value: unknown): void {
    this.data[key] = value;
    this.#changed = true;
  }

  /** The bytes to hand back: `given` (the engine's own) unless a key was set. */
  encode(given: Uint8Array | undefined): Uint8Array | undefined {
    return this.#changed ? new TextEncoder().encode(JSON.stringify(this.data)) : given;
  }
}
