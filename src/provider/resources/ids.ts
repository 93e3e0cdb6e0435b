/** Resource ids are the API's integer ids written as strings, as Terraform convention has it. */
export function parseId(id: string): number {
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new Error(`"${id}" is not a valid id: expected a positive integer such as 12345`);
  return Number(id);
}
