/**
 * What the account contact and the profile settings share: an object that always exists, so
 * create adopts it, delete only forgets it (with a warning), import takes any id; and only the
 * attributes the configuration sets are managed and sent, the others showing the live value.
 */
import type { ProviderContext } from "../config";
import type { ResourceDefinition } from "../framework/resource";
import { isUnknown, type ObjectValue, type TfValue } from "../framework/value";
import type { Attributes, StateOf } from "../framework/value-types";

/** The fields the configuration sets, with their planned values: the body of the PUT. */
export function configuredFields(config: ObjectValue, planned: ObjectValue, names: readonly string[]): Record<string, TfValue> {
  const body: Record<string, TfValue> = {};
  for (const name of names) {
    const value = planned[name] ?? null;
    if ((config[name] ?? null) !== null && value !== null && !isUnknown(value)) body[name] = value;
  }
  return body;
}

export interface SingletonApi<A extends Attributes> {
  /** What the warning on destroy calls the object ("account", "profile"). */
  readonly what: string;
  read(ctx: ProviderContext): Promise<StateOf<A>>;
  write(ctx: ProviderContext, body: Record<string, TfValue>): Promise<StateOf<A>>;
}

type SingletonCrud<A extends Attributes> = Pick<ResourceDefinition<ProviderContext, A>, "create" | "read" | "update" | "delete" | "importState">;

/** The CRUD of a singleton; a PUT may send every attribute but the id (the declaration is the field list). */
export function singletonCrud<A extends Attributes>(typeName: string, attributes: A, api: SingletonApi<A>): SingletonCrud<A> {
  const fields = Object.keys(attributes).filter((name) => name !== "id");
  const apply = async (ctx: ProviderContext, planned: ObjectValue, config: ObjectValue) => {
    const body = configuredFields(config, planned, fields);
    return Object.keys(body).length > 0 ? api.write(ctx, body) : api.read(ctx);
  };
  return {
    create: ({ ctx }, planned, config) => apply(ctx, planned, config),
    read: ({ ctx }) => api.read(ctx),
    update: ({ ctx }, _prior, planned, config) => apply(ctx, planned, config),
    delete: async ({ warn }) =>
      warn(
        `${typeName} removed from state only`,
        `The ${api.what} always exists and cannot be deleted; nothing was changed on the API. Its values stay as they are.`,
      ),
    importState: ({ ctx }) => api.read(ctx),
  };
}
