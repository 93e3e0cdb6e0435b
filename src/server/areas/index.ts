/**
 * The areas of the API, composed: the store's repositories and the app's routes from `AREAS`,
 * the domain's services by `createDomain`, which builds the areas in order (an area is built with
 * the services of areas before it). Adding an area: its folder, its line in `AREAS` and in
 * `createDomain`, and what it adds to lists shared by every area (a migration, event actions,
 * filterable fields: see `../README.md`).
 */
import { Authenticator } from "../auth/authenticate";
import type { Deps } from "../domain/context";
import type { RequestTransaction, Router } from "../http/router";
import type { ReposOf } from "../store/kysely-store";
import type { Handle, StoreOf } from "../store/store";
import { account } from "./account";
import { events } from "./events";
import { oauth } from "./oauth";
import { profile } from "./profile";
import { security } from "./security";
import { sessions } from "./sessions";
import { sshKeys } from "./sshkeys";
import { tags } from "./tags";
import { tokens } from "./tokens";
import { transfers } from "./transfers";

/** The areas, in the order their routes are registered (and the OpenAPI document lists them). */
const AREAS = [events, tokens, profile, sshKeys, oauth, sessions, security, tags, transfers, account] as const;

type AnyArea = (typeof AREAS)[number];
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (u: infer I) => void ? I : never;

/** Every area's repositories. */
export type Repos = Merged<ReturnType<AnyArea["repos"]>>;
/** The store with every area's repositories: what the composition root, admin and fixtures hold. */
export type Store = StoreOf<Repos>;

/**
 * The repositories of every area over one handle. Each area names the tables its queries read;
 * the handle serves them all (the migrations made every table), which the types cannot follow.
 */
export const repos: ReposOf<Repos> = (handle) => Object.assign({}, ...AREAS.map((area) => (area.repos as (h: Handle<unknown>) => object)(handle))) as Repos;

/**
 * Every area's services over one store, built in order: each area is given the services of the
 * areas built before it, so a service used before its area is built, or a repository no area
 * provides, does not compile.
 */
export function createDomain(deps: Deps<Repos>) {
  const withEvents = events.services(deps, {});
  const withTokens = { ...withEvents, ...tokens.services(deps, withEvents) };
  const withProfile = { ...withTokens, ...profile.services(deps, withTokens) };
  const withSshKeys = { ...withProfile, ...sshKeys.services(deps, withProfile) };
  const withOauth = { ...withSshKeys, ...oauth.services(deps, withSshKeys) };
  const withSessions = { ...withOauth, ...sessions.services(deps, withOauth) };
  const withSecurity = { ...withSessions, ...security.services(deps, withSessions) };
  const withTags = { ...withSecurity, ...tags.services(deps, withSecurity) };
  const withTransfers = { ...withTags, ...transfers.services(deps, withTags) };
  // A request's writes run whole in one store transaction, which the services' own join (`Router.writesIn`).
  const atomically: RequestTransaction = (work) => deps.store.transaction(() => work());
  // Authentication reads several areas' records and belongs to none (`../auth`).
  return { ...withTransfers, ...account.services(deps, withTransfers), auth: new Authenticator(deps), atomically };
}
/** Every area's services. */
export type Domain = ReturnType<typeof createDomain>;

/** Registers every area's routes, in the order of the list. */
export function registerRoutes(router: Router, domain: Domain): void {
  router.writesIn(domain.atomically);
  for (const area of AREAS) area.routes(router, domain);
}
