/**
 * What the account contact and the profile settings share: an object that always exists, so
 * create adopts it, delete only forgets it, import takes any id; and only the attributes the
 * configuration sets are managed and sent, the others showing the live value.
 */
import { isUnknown, type ObjectValue, type TfValue } from "../framework/value";

/** The fields the configuration sets, with their planned values: the body of the PUT. */
export function configuredFields<K extends string>(config: ObjectValue, planned: ObjectValue, names: readonly K[]): Partial<Record<K, TfValue>> {
  const body: Partial<Record<K, TfValue>> = {};
  for (const name of names) {
    const value = planned[name] ?? null;
    if ((config[name] ?? null) !== null && value !== null && !isUnknown(value)) body[name] = value;
  }
  return body;
}

export const forgetWarning = (typeName: string, what: string): [string, string] => [
  `${typeName} removed from state only`,
  `The ${what} always exists and cannot be deleted; nothing was changed on the API. Its values stay as they are.`,
];
