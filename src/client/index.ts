/**
 * The Management API client: typed (every body parsed with the contract's zod schema), pooled
 * (one undici Pool), paginating, and retrying per ./retry (a create is never silently repeated).
 *
 * Adding an endpoint is one method built on `get`, `list`, `page`, `send` or `remove`:
 *
 *   async getToken(id: number, o?: CallOptions) { return this.get("getToken", route`/profile/tokens/${id}`, Token, o); }
 *   listTokens(o?: ListOptions) { return this.list("listTokens", "/profile/tokens", Token, o); }
 */
import type { z } from "zod";
import { EmptyBody, PAGE_SIZE, paginated, type Page } from "../contract/common";
import { Account, type AccountUpdate } from "../contract/account";
import { OAuthClient, type OAuthClientCreate, type OAuthClientUpdate } from "../contract/oauth-clients";
import { Profile, type ProfileUpdate } from "../contract/profile";
import { SshKey, type SshKeyCreate, type SshKeyUpdate } from "../contract/sshkeys";
import { Tag, TaggedObject, type TagCreate } from "../contract/tags";
import { PersonalAccessToken, type TokenCreate, type TokenUpdate } from "../contract/tokens";
import { Event } from "../contract/events";
import { ChildAccount, Invoice, InvoiceItem, MaintenanceItem, Notification, PaymentMethod, RegionAvailability } from "../contract/account";
import { GrantsResponse } from "../contract/grants";
import { AuthorizedApp, Login, TrustedDevice } from "../contract/sessions";
import { HttpClient, route, type BinaryResponse, type HttpOptions } from "./http";
import type { CallOptions, Method } from "./call";
import { paginate } from "./paginate";

export * from "./errors";
export { DEFAULT_CONNECTIONS, DEFAULT_USER_AGENT, HttpClient, route } from "./http";
export type { BinaryResponse, HttpOptions, RequestSpec } from "./http";
export type { AttemptEvent, CallOptions, Credentials, Method, Query, RetryEvent, Sleep } from "./call";
export { listAll, paginate, type PageFetcher } from "./paginate";
export { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "./retry";

export type MgmtClientOptions = HttpOptions;

export interface ListOptions extends CallOptions {
  /** Items per request while walking a whole list; default the upstream maximum (500). */
  readonly pageSize?: number;
  /** Sent as upstream's X-Filter header on every page (conditions, `+order_by`, `+order`); only where the API filters the list. */
  readonly filter?: Readonly<Record<string, unknown>>;
}

/** An item schema's paginated envelope, built once per schema. */
const envelopes = new WeakMap<z.ZodType, z.ZodType>();
function envelopeOf<T extends z.ZodType>(item: T): ReturnType<typeof paginated<T>> {
  let env = envelopes.get(item);
  if (!env) {
    env = paginated(item);
    envelopes.set(item, env);
  }
  return env as ReturnType<typeof paginated<T>>;
}

export class MgmtClient {
  readonly http: HttpClient;

  constructor(opts: MgmtClientOptions) {
    // GET /profile answers any valid token, whatever its scopes: it proves both the URL and the token.
    this.http = new HttpClient({ rootProbe: { path: "/profile", schema: Profile }, ...opts });
  }

  /**
   * The acting user's profile, asked once per client and kept: proof that the URL leads to the
   * API (else ApiRootError) and that the token is accepted (else ApiError 401).
   */
  async checkAccess(o?: CallOptions): Promise<Profile> {
    return (await this.http.confirmRoot(o?.signal)) as Profile;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  // Profile

  async getProfile(o?: CallOptions): Promise<Profile> {
    return this.get("getProfile", "/profile", Profile, o);
  }

  // SSH keys

  listSshKeys(o?: ListOptions): AsyncIterable<SshKey> {
    return this.list("listSshKeys", "/profile/sshkeys", SshKey, o);
  }

  async listSshKeysPage(page: number, pageSize?: number, o?: CallOptions): Promise<Page<SshKey>> {
    return this.page("listSshKeys", "/profile/sshkeys", SshKey, page, pageSize, o);
  }

  async getSshKey(id: number, o?: CallOptions): Promise<SshKey> {
    return this.get("getSshKey", route`/profile/sshkeys/${id}`, SshKey, o);
  }

  async createSshKey(body: SshKeyCreate, o?: CallOptions): Promise<SshKey> {
    return this.send("createSshKey", "POST", "/profile/sshkeys", body, SshKey, o);
  }

  async updateSshKey(id: number, body: SshKeyUpdate, o?: CallOptions): Promise<SshKey> {
    return this.send("updateSshKey", "PUT", route`/profile/sshkeys/${id}`, body, SshKey, o);
  }

  async deleteSshKey(id: number, o?: CallOptions): Promise<void> {
    return this.remove("deleteSshKey", route`/profile/sshkeys/${id}`, o);
  }

  async updateProfile(body: ProfileUpdate, o?: CallOptions): Promise<Profile> {
    return this.send("updateProfile", "PUT", "/profile", body, Profile, o);
  }

  // Personal access tokens

  listTokens(o?: ListOptions): AsyncIterable<PersonalAccessToken> {
    return this.list("listTokens", "/profile/tokens", PersonalAccessToken, o);
  }

  async getToken(id: number, o?: CallOptions): Promise<PersonalAccessToken> {
    return this.get("getToken", route`/profile/tokens/${id}`, PersonalAccessToken, o);
  }

  /** The answer holds the whole token value, the only time the API shows it. */
  async createToken(body: TokenCreate, o?: CallOptions): Promise<PersonalAccessToken> {
    return this.send("createToken", "POST", "/profile/tokens", body, PersonalAccessToken, o);
  }

  async updateToken(id: number, body: TokenUpdate, o?: CallOptions): Promise<PersonalAccessToken> {
    return this.send("updateToken", "PUT", route`/profile/tokens/${id}`, body, PersonalAccessToken, o);
  }

  async revokeToken(id: number, o?: CallOptions): Promise<void> {
    return this.remove("revokeToken", route`/profile/tokens/${id}`, o);
  }

  // Account

  async getAccount(o?: CallOptions): Promise<Account> {
    return this.get("getAccount", "/account", Account, o);
  }

  async updateAccount(body: AccountUpdate, o?: CallOptions): Promise<Account> {
    return this.send("updateAccount", "PUT", "/account", body, Account, o);
  }

  // OAuth clients

  listOAuthClients(o?: ListOptions): AsyncIterable<OAuthClient> {
    return this.list("listOAuthClients", "/account/oauth-clients", OAuthClient, o);
  }

  async getOAuthClient(id: string, o?: CallOptions): Promise<OAuthClient> {
    return this.get("getOAuthClient", route`/account/oauth-clients/${id}`, OAuthClient, o);
  }

  /** The answer holds the secret, which later reads redact. */
  async createOAuthClient(body: z.input<typeof OAuthClientCreate>, o?: CallOptions): Promise<OAuthClient> {
    return this.send("createOAuthClient", "POST", "/account/oauth-clients", body, OAuthClient, o);
  }

  async updateOAuthClient(id: string, body: z.input<typeof OAuthClientUpdate>, o?: CallOptions): Promise<OAuthClient> {
    return this.send("updateOAuthClient", "PUT", route`/account/oauth-clients/${id}`, body, OAuthClient, o);
  }

  async deleteOAuthClient(id: string, o?: CallOptions): Promise<void> {
    return this.remove("deleteOAuthClient", route`/account/oauth-clients/${id}`, o);
  }

  /** A new secret, in the answer only. Retried like an idempotent call: a repeated reset leaves the latest secret, which is the one answered. */
  async resetOAuthClientSecret(id: string, o?: CallOptions): Promise<OAuthClient> {
    return this.http.request({
      operation: "resetOAuthClientSecret",
      method: "POST",
      path: route`/account/oauth-clients/${id}/reset-secret`,
      schema: OAuthClient,
      idempotent: true,
      signal: o?.signal,
    });
  }

  /** The public thumbnail operation: the image bytes as uploaded. */
  async getOAuthClientThumbnail(id: string, o?: CallOptions): Promise<BinaryResponse> {
    return this.http.requestBytes({
      operation: "getOAuthClientThumbnail",
      method: "GET",
      path: route`/account/oauth-clients/${id}/thumbnail`,
      signal: o?.signal,
    });
  }

  async setOAuthClientThumbnail(id: string, image: { contentType: string; data: Uint8Array }, o?: CallOptions): Promise<void> {
    await this.http.request({
      operation: "setOAuthClientThumbnail",
      method: "PUT",
      path: route`/account/oauth-clients/${id}/thumbnail`,
      rawBody: image,
      schema: EmptyBody,
      signal: o?.signal,
    });
  }

  // Tags

  listTags(o?: ListOptions): AsyncIterable<Tag> {
    return this.list("listTags", "/tags", Tag, o);
  }

  async createTag(body: TagCreate, o?: CallOptions): Promise<Tag> {
    return this.send("createTag", "POST", "/tags", body, Tag, o);
  }

  /** The objects carrying the tag; a tag that does not exist is a 404. */
  listTaggedObjects(label: string, o?: ListOptions): AsyncIterable<TaggedObject> {
    return this.list("listTaggedObjects", route`/tags/${label}`, TaggedObject, o);
  }

  async deleteTag(label: string, o?: CallOptions): Promise<void> {
    return this.remove("deleteTag", route`/tags/${label}`, o);
  }

  // Read-only views for the data sources.

  listEvents(o?: ListOptions): AsyncIterable<Event> {
    return this.list("listEvents", "/account/events", Event, o);
  }

  async getEvent(id: number, o?: CallOptions): Promise<Event> {
    return this.get("getEvent", route`/account/events/${id}`, Event, o);
  }

  listInvoices(o?: ListOptions): AsyncIterable<Invoice> {
    return this.list("listInvoices", "/account/invoices", Invoice, o);
  }

  async getInvoice(id: number, o?: CallOptions): Promise<Invoice> {
    return this.get("getInvoice", route`/account/invoices/${id}`, Invoice, o);
  }

  listInvoiceItems(id: number, o?: ListOptions): AsyncIterable<InvoiceItem> {
    return this.list("listInvoiceItems", route`/account/invoices/${id}/items`, InvoiceItem, o);
  }

  listAvailabilities(o?: ListOptions): AsyncIterable<RegionAvailability> {
    return this.list("listAvailabilities", "/account/availability", RegionAvailability, o);
  }

  async getAvailability(region: string, o?: CallOptions): Promise<RegionAvailability> {
    return this.get("getAvailability", route`/account/availability/${region}`, RegionAvailability, o);
  }

  listChildAccounts(o?: ListOptions): AsyncIterable<ChildAccount> {
    return this.list("listChildAccounts", "/account/child-accounts", ChildAccount, o);
  }

  async getChildAccount(euuid: string, o?: CallOptions): Promise<ChildAccount> {
    return this.get("getChildAccount", route`/account/child-accounts/${euuid}`, ChildAccount, o);
  }

  /** A token of the child account's proxy user, valid for 15 minutes; the whole value is in this answer only. */
  async createChildAccountToken(euuid: string, o?: CallOptions): Promise<PersonalAccessToken> {
    return this.send("createChildAccountToken", "POST", route`/account/child-accounts/${euuid}/token`, undefined, PersonalAccessToken, o);
  }

  listAccountLogins(o?: ListOptions): AsyncIterable<Login> {
    return this.list("listAccountLogins", "/account/logins", Login, o);
  }

  listProfileLogins(o?: ListOptions): AsyncIterable<Login> {
    return this.list("listProfileLogins", "/profile/logins", Login, o);
  }

  listMaintenance(o?: ListOptions): AsyncIterable<MaintenanceItem> {
    return this.list("listMaintenance", "/account/maintenance", MaintenanceItem, o);
  }

  listNotifications(o?: ListOptions): AsyncIterable<Notification> {
    return this.list("listNotifications", "/account/notifications", Notification, o);
  }

  listPaymentMethods(o?: ListOptions): AsyncIterable<PaymentMethod> {
    return this.list("listPaymentMethods", "/account/payment-methods", PaymentMethod, o);
  }

  /** The acting user's grants; undefined for an unrestricted user (the API answers 204, no body). */
  async getGrants(o?: CallOptions): Promise<GrantsResponse | undefined> {
    return this.get("getGrants", "/profile/grants", GrantsResponse.optional(), o);
  }

  listTrustedDevices(o?: ListOptions): AsyncIterable<TrustedDevice> {
    return this.list("listTrustedDevices", "/profile/devices", TrustedDevice, o);
  }

  listAuthorizedApps(o?: ListOptions): AsyncIterable<AuthorizedApp> {
    return this.list("listAuthorizedApps", "/profile/apps", AuthorizedApp, o);
  }

  // Building blocks: one line per endpoint above. (Endpoint methods are async so that a bad
  // argument, e.g. a NaN id refused by `route`, surfaces as a rejection like any other error.)

  protected get<S extends z.ZodType>(operation: string, path: string, schema: S, o?: CallOptions): Promise<z.output<S>> {
    return this.http.request({ operation, method: "GET", path, schema, signal: o?.signal });
  }

  /** POST/PUT with a JSON body. Request bodies are not validated here: the server is the authority. */
  protected send<S extends z.ZodType>(operation: string, method: Method, path: string, body: unknown, schema: S, o?: CallOptions): Promise<z.output<S>> {
    return this.http.request({ operation, method, path, body, schema, signal: o?.signal });
  }

  /** DELETE answering `{}`. */
  protected async remove(operation: string, path: string, o?: CallOptions): Promise<void> {
    await this.http.request({ operation, method: "DELETE", path, schema: EmptyBody, signal: o?.signal });
  }

  /** One page of a paginated list. */
  protected page<S extends z.ZodType>(operation: string, path: string, item: S, page: number, pageSize?: number, o?: ListOptions): Promise<Page<z.output<S>>> {
    if (!Number.isSafeInteger(page) || page < 1) throw new TypeError(`${operation}: page must be a positive integer, got ${page}`);
    if (pageSize !== undefined && !Number.isSafeInteger(pageSize)) throw new TypeError(`${operation}: pageSize must be an integer, got ${pageSize}`);
    const headers = o?.filter === undefined ? undefined : { "x-filter": JSON.stringify(o.filter) };
    return this.http.request({
      operation,
      method: "GET",
      path,
      query: { page, page_size: pageSize },
      headers,
      schema: envelopeOf(item),
      signal: o?.signal,
    }) as Promise<Page<z.output<S>>>;
  }

  /** Every item of a paginated list, fetched page by page as the iteration proceeds. */
  protected list<S extends z.ZodType>(operation: string, path: string, item: S, o?: ListOptions): AsyncIterable<z.output<S>> {
    const pageSize = o?.pageSize ?? PAGE_SIZE.max;
    return paginate((n) => this.page(operation, path, item, n, pageSize, o));
  }
}
