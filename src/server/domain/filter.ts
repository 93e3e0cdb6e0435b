/**
 * The X-Filter grammar for the server: the contract's module (`src/contract/x-filter.ts`), with
 * its refusals answered as 400 naming `X-Filter`. `listAnswer` in the router applies it.
 */
import { FILTER_HEADER, FilterError, parseFilter as parseContractFilter, type FilterFields, type Filter } from "../../contract/x-filter";
import { invalid } from "./errors";

export * from "../../contract/x-filter";

/** As the contract's `parseFilter`, throwing a 400 `DomainError` naming `X-Filter` instead. */
export function parseFilter(header: string | string[] | undefined, fields: FilterFields): Filter | null {
  try {
    return parseContractFilter(header, fields);
  } catch (err) {
    if (err instanceof FilterError) throw invalid(FILTER_HEADER, err.reason);
    throw err;
  }
}
