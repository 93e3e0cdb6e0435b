/**
 * A managed type's collection: how the API lists its objects, which key names one (the id state
 * holds and the import id) and, where the API has it, how to fetch one alone. Each type declares it
 * once, in its own folder (`<type>/collection.ts`); batched reads, create-once searches, the data
 * sources and `mgmt drift --unmanaged` all read that declaration, so none restates an endpoint or a key.
 *
 * Beside it, a type's `collection.ts` holds its create-once search and its twins: what makes a live
 * object the exact twin of one a plan creates (the fields a create sets and the API shows back). The
 * resource hands the twin rule what the batched reads listed, and the framework keeps only the twins
 * outside state.
 */
import type { CallOptions, ListOptions, MgmtClient } from "../../client";

export interface Collection<T> {
  /** The resource type whose objects these are: a write of it drops the batched snapshot, and create-once claims are kept per type. */
  readonly typeName: string;
  /** The objects as a report names them ("SSH keys"). */
  readonly title: string;
  /** The list's path, as the contract's filterable lists and the adoption check name it. */
  readonly path: string;
  list(client: MgmtClient, o?: ListOptions): AsyncIterable<T>;
  /** The key of an object: the id its resource's state holds and the id it is imported by. */
  key(item: T): string;
  /** What a person recognises the object by. */
  label(item: T): string;
  /** The state attribute that holds the key. */
  readonly stateKey: "id" | "label";
}

/** A collection whose objects the API also reads one at a time (a refresh of one object, an import). */
export interface FetchableCollection<T> extends Collection<T> {
  get(client: MgmtClient, key: string, o?: CallOptions): Promise<T>;
}
