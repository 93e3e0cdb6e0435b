/**
 * Twins named before they are made. A create the engine never recorded (a second Ctrl-C, a
 * killed plugin) leaves an object outside state, and the next apply makes it again beside it.
 * At plan the provider cannot read the state, but every object in it passes through this
 * provider instance: refreshed (ReadResource), planned (its prior state), written or imported.
 * This remembers those ids per type, so that a twin found for a planned create is named only
 * when no state this run has shown holds it.
 */
import { warning, type Diagnostic } from "./diagnostics";
import type { Twin } from "./resource";
import type { ObjectValue } from "./value";

export class StateIds {
  readonly #ids = new Map<string, Set<string>>();
  readonly #reading = new Map<string, Set<Promise<unknown>>>();

  /** An object of the type is in (or going into) the state this run works on. */
  note(typeName: string, state: ObjectValue | null | undefined): void {
    const id = state?.id;
    if (typeof id !== "string") return;
    let ids = this.#ids.get(typeName);
    if (!ids) this.#ids.set(typeName, (ids = new Set()));
    ids.add(id);
  }

  /** A refresh of the type in progress: a twin check waits for it, since the object it reads is in state. */
  async reading<T>(typeName: string, read: Promise<T>): Promise<T> {
    let pending = this.#reading.get(typeName);
    if (!pending) this.#reading.set(typeName, (pending = new Set()));
    pending.add(read);
    try {
      return await read;
    } finally {
      pending.delete(read);
    }
  }

  /** The twins no state seen so far holds, after the refreshes of the type in progress have ended. */
  async outside(typeName: string, twins: readonly Twin[]): Promise<Twin[]> {
    if (twins.length === 0) return [];
    await Promise.allSettled([...(this.#reading.get(typeName) ?? [])]);
    const ids = this.#ids.get(typeName);
    return twins.filter((t) => !ids?.has(t.id));
  }
}

/** The warning for one twin: its id, why it is one, and the import block that adopts it. */
export function twinWarning(typeName: string, twin: Twin): Diagnostic {
  return warning(
    `${typeName} "${twin.id}" already exists outside the state`,
    [
      `${capitalised(twin.alike)} (id ${twin.id}) is in the account but in no state this run has read; this plan creates another beside it. To adopt it instead, add:`,
      ``,
      `import {`,
      `  to = ${typeName}.<name>`,
      `  id = "${twin.id}"`,
      `}`,
      ``,
      `(in cdktf: .importFrom("${twin.id}") on the construct), or delete it if it is not wanted (mgmt drift --unmanaged lists such objects). Most likely an apply was interrupted (a second Ctrl-C, a killed process) after creating it and before recording it. The provider never adopts it by itself.`,
    ].join("\n"),
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
