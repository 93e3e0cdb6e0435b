/**
 * A list data source is one declaration: its items' attributes, how to fetch (with or without
 * X-Filter) and how to show one API item. The filter arguments, their validation, the id hash,
 * local filtering, ordering, limiting and early stop are the same for every list, here.
 */
import type { ListOptions, MgmtClient } from "../../client";
import type { ProviderContext } from "../config";
import { list, object, string } from "../framework/attributes";
import type { Diagnostic } from "../framework/diagnostics";
import { defineDataSource, type Attributes, type DataSourceDefinition, type Operation } from "../framework/resource";
import type { StateOf } from "../framework/value-types";
import type { ObjectValue } from "../framework/value";
import { API_FILTERABLE, type ApiFieldType } from "../../contract/filterable";
import { apiFilter, argumentsId, filterAttributes, filterFieldsOf, matchesAll, parseQuery, sortItems, validateFilters, type FilterFields } from "./filter";

/** A list of T from the API, whose items have the attributes I (a `toItem` must give exactly those). */
export interface ListDefinition<T, I extends Attributes> {
  readonly typeName: string;
  readonly description: string;
  /** The API path, which names the X-Filter table when the API filters this list. */
  readonly path: string;
  /** The attribute holding the items, and what one item is. */
  readonly itemsName: string;
  readonly itemDescription: string;
  readonly item: I;
  /** Arguments of this list besides the shared filter ones. */
  readonly arguments?: Attributes;
  /** Conditions from those arguments: X-Filter parts and local checks on an item. */
  conditions?(config: ObjectValue): { readonly api: readonly Record<string, unknown>[]; readonly local: readonly ((item: ObjectValue) => boolean)[] };
  validate?(config: ObjectValue): readonly Diagnostic[];
  fetch(client: MgmtClient, o: ListOptions): AsyncIterable<T>;
  toItem(raw: T): StateOf<I>;
  /** Work on the final items only (fetching invoice items), after filtering and the limit. */
  complete?(op: Operation<ProviderContext>, config: ObjectValue, items: ObjectValue[]): Promise<ObjectValue[]>;
}

export function defineListDataSource<T, I extends Attributes>(
  def: ListDefinition<T, I>,
): DataSourceDefinition<ProviderContext> & { readonly fields: FilterFields } {
  const tables: Readonly<Record<string, Readonly<Record<string, ApiFieldType>>>> = API_FILTERABLE;
  const fields = filterFieldsOf(def.item, tables[def.path] ?? {});
  const own = def.arguments ?? {};
  const argumentNames = [...Object.keys(own), "filter", "order_by", "order", "limit"];

  return {
    fields,
    ...defineDataSource<ProviderContext>()({
      typeName: def.typeName,
      description: def.description,
      attributes: {
        id: string("computed", "A hash of the arguments: the same arguments give the same id."),
        ...own,
        ...filterAttributes(fields),
        [def.itemsName]: list("computed", def.itemDescription, object("computed", def.itemDescription, def.item)),
      },

      validate: (config) => [...validateFilters(fields, config), ...(def.validate?.(config) ?? [])],

      async read(op, config) {
        const q = parseQuery(fields, config);
        const extra = def.conditions?.(config) ?? { api: [], local: [] };
        const { filter, sortedByApi } = apiFilter(fields, q, extra.api);
        // In the API's order, the first `limit` matches are the answer: no need to read further.
        const stopAt = sortedByApi ? q.limit : undefined;
        const kept: ObjectValue[] = [];
        for await (const raw of def.fetch(op.ctx.client, { signal: op.signal, ...(filter ? { filter } : {}) })) {
          const item = def.toItem(raw);
          if (!matchesAll(item, q.conditions) || !extra.local.every((check) => check(item))) continue;
          kept.push(item);
          if (stopAt !== undefined && kept.length >= stopAt) break;
        }
        let items = sortItems(kept, q);
        if (q.limit !== undefined) items = items.slice(0, q.limit);
        if (def.complete) items = await def.complete(op, config, items);
        return {
          ...Object.fromEntries(argumentNames.map((n) => [n, (config as ObjectValue)[n] ?? null])),
          id: argumentsId(def.typeName, config, argumentNames),
          [def.itemsName]: items,
        };
      },
    }),
  };
}
