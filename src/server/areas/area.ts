/**
 * What an area of the API is: its repositories (`store.ts`), its services (the domain rules)
 * and its routes, side by side in one folder. `./index.ts` lists the areas; the store, the
 * domain and the app are each composed from that list, one way.
 */
import type { Deps } from "../domain/context";
import type { Router } from "../http/router";
import type { Handle } from "../store/store";

/**
 * `Tables`: what its queries read; `R`: its repositories; `Needs`: the repositories (of any area)
 * its services use; `Uses`: the services of areas listed before it that it is built with.
 */
export interface Area<Tables, R extends object, Needs, S extends object, Uses extends object> {
  repos(handle: Handle<Tables>): R;
  services(deps: Deps<Needs>, uses: Uses): S;
  /** Registers the area's routes, given its own services and those it uses. */
  routes(router: Router, domain: S & Uses): void;
}

/** Declares an area; every type is inferred from the functions given. */
export const defineArea = <Tables, R extends object, Needs, S extends object, Uses extends object = object>(
  area: Area<Tables, R, Needs, S, Uses>,
): Area<Tables, R, Needs, S, Uses> => area;
