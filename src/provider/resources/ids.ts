import { PATH_ID_PATTERN } from "../../contract/field-rules";

/** Why a text is not one of the API's integer ids (the contract's path id), or undefined when it is. */
export const idProblem = (id: string): string | undefined =>
  PATH_ID_PATTERN.test(id) ? undefined : `"${id}" is not a valid id: expected a positive integer such as 12345`;

/** Resource ids are the API's integer ids written as strings, as Terraform convention has it. */
export function parseId(id: string): number {
  const problem = idProblem(id);
  if (problem !== undefined) throw new Error(problem);
  return Number(id);
}

/** Said when a create whose answer was lost turned out to have happened, and its object was adopted. */
export const adoptedWarning = (typeName: string, id: string): [string, string] => [
  `${typeName} "${id}" adopted after a lost answer`,
  "The create request's answer was lost (connection dropped, timeout or server error after it was sent). An object matching it, created since, was found and adopted instead of creating a duplicate.",
];

/** The id of an object in state: always known once created (a null one is a corrupt state, not a value to send). */
export function stateId(state: { readonly id: string | null }): string {
  if (state.id === null) throw new Error('attribute "id" must be a known string');
  return state.id;
}
