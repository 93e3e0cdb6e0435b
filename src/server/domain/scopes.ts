/** The scope grammar is the contract's: the provider compares scopes with the same rules the server enforces. */
export { Scopes, type Access, type Scope, type ScopeParse } from "../../contract/scopes";
