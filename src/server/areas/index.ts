/**
 * The areas of the API, in the order their services are built (an area is built with the
 * services of areas before it). Adding an area: its folder, one line here, and what it adds to
 * lists shared by every area (a migration, event actions, filterable fields: see `../README.md`).
 * The store's repositories, the domain's services and the app's routes are composed from this
 * list and nowhere else.
 */
import type { Deps } from "../domain/context";
import type { Router } from "../http/router";
import type { ReposOf } from "../store/kysely-store";
import type { Handle, StoreOf } from "../store/store";
import { account } from "./account";
import type { Area } from "./area";
import { events } from "./events";
import { oauth } from "./oauth";
import { profile } from "./profile";
import { security } from "./security";
import { sessions } from "./sessions";
import { sshKeys } from "./sshkeys";
import { tags } from "./tags";
import { tokens } from "./tokens";
import { transfers } from "./transfers";

const AREAS = [events, tokens, profile, sshKeys, oauth, sessions, security, tags, transfers, account] as const;

type AnyArea = (typeof AREAS)[number];
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (u: infer I) => void ? I : never;

/** Every area's repositories. */
export type Repos = Merged<ReturnType<AnyArea["repos"]>>;
/** The store with every area's repositories: what the composition root, admin and fixtures hold. */
export type Store = StoreOf<Repos>;
/** Every area's services. */
export type Domain = Merged<ReturnType<AnyArea["services"]>>;

/**
 * The repositories of every area over one handle. Each area names the tables its queries read;
 * the handle serves them all (the migrations made every table), which the types cannot follow.
 */
export const repos: ReposOf<Repos> = (handle) => Object.assign({}, ...AREAS.map((area) => (area.repos as (h: Handle<unknown>) => object)(handle))) as Repos;

/**
 * Compiles only while every area's services use repositories some area provides and services
 * some area builds (that those come from areas listed before it is checked when built).
 */
type Met<A> =
  A extends Area<infer _T, infer _R, infer Needs, infer _S, infer Uses>
    ? Repos extends Needs
      ? Domain extends Uses
        ? true
        : "uses a service no area builds"
      : "uses a repository no area provides"
    : never;
export type AreasMet = AllTrue<{ [K in keyof typeof AREAS]: Met<(typeof AREAS)[K]> }>;
type AllTrue<T extends readonly true[]> = T;

/** Every area's services over one store, each built with those of the areas listed before it. */
export function createDomain(deps: Deps<Repos>): Domain {
  const domain: Record<string, unknown> = {};
  const built = new Proxy(domain, {
    get(target, name) {
      if (!(name in target)) throw new Error(`an area uses the service ${String(name)} before its area is built: list that area earlier`);
      return target[name as string];
    },
  });
  for (const area of AREAS) Object.assign(domain, (area.services as (deps: Deps<Repos>, uses: unknown) => object)(deps, built));
  return domain as Domain;
}

/** Registers every area's routes, in the order of the list. */
export function registerRoutes(router: Router, domain: Domain): void {
  for (const area of AREAS) (area.routes as (router: Router, domain: Domain) => void)(router, domain);
}
