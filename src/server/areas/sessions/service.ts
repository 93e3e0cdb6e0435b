/**
 * Trusted devices (remember-me sessions of 30 days) and logins (listed for 90 days). The API
 * only reads and revokes them; `create` and `record` are for the admin namespace, the
 * fixtures file (later) and tests.
 */
import { LOGIN_HISTORY_DAYS, TRUSTED_DEVICE_DAYS, parseTimestamp, type Page, type PageQuery } from "../../../contract";
import type { ProfileRepos } from "../profile/store";
import type { DeviceRecord, LoginRecord, LoginStatus, SessionRepos } from "./store";
import { DAY, comparableNow, wireLater, wireNow, wireAt, type Actor, type Deps } from "../../domain/context";
import { notFound } from "../../domain/errors";
import { pageOf } from "../../domain/paging";

export interface NewDeviceInput {
  userId: number;
  userAgent: string;
  remoteAddr: string;
  /** Start of the session (default now); it ends 30 days later. */
  created?: string;
}

export class DeviceService {
  constructor(private readonly deps: Deps<SessionRepos>) {}

  async create(input: NewDeviceInput): Promise<DeviceRecord> {
    const created = input.created ?? wireNow(this.deps.clock);
    return this.deps.store.devices.insert({
      user_id: input.userId,
      created,
      expiry: wireLater(parseTimestamp(created).getTime(), TRUSTED_DEVICE_DAYS * DAY),
      last_authenticated: created,
      last_remote_addr: input.remoteAddr,
      user_agent: input.userAgent,
    });
  }

  list(actor: Actor, query: PageQuery): Promise<Page<DeviceRecord>> {
    const now = comparableNow(this.deps.clock);
    return pageOf(query, (slice) => this.deps.store.devices.listActive(actor.user.id, now, slice));
  }

  async get(actor: Actor, id: number): Promise<DeviceRecord> {
    const device = await this.deps.store.devices.getActive(actor.user.id, id, comparableNow(this.deps.clock));
    if (device === undefined) throw notFound();
    return device;
  }

  async revoke(actor: Actor, id: number): Promise<void> {
    const now = wireNow(this.deps.clock);
    await this.deps.store.transaction(async (tx) => {
      if ((await tx.devices.getActive(actor.user.id, id, now)) === undefined) throw notFound();
      await tx.devices.revoke(id, now);
    });
  }
}

export interface NewLoginInput {
  userId: number;
  ip: string;
  status?: LoginStatus;
  /** Default now. */
  datetime?: string;
}

export class LoginService {
  constructor(private readonly deps: Deps<SessionRepos & Pick<ProfileRepos, "users">>) {}

  /** Records a login attempt with the user's name and restriction at that moment. */
  async record(input: NewLoginInput): Promise<LoginRecord> {
    const user = await this.deps.store.users.get(input.userId);
    if (user === undefined) throw notFound();
    return this.deps.store.logins.insert({
      user_id: user.id,
      datetime: input.datetime ?? wireNow(this.deps.clock),
      ip: input.ip,
      restricted: user.restricted,
      status: input.status ?? "successful",
      username: user.username,
    });
  }

  private since(): string {
    return wireAt(this.deps.clock, -LOGIN_HISTORY_DAYS * DAY);
  }

  list(actor: Actor, query: PageQuery): Promise<Page<LoginRecord>> {
    const since = this.since();
    return pageOf(query, (slice) => this.deps.store.logins.listSuccessful(actor.user.id, since, slice));
  }

  async get(actor: Actor, id: number): Promise<LoginRecord> {
    const login = await this.deps.store.logins.getSuccessful(actor.user.id, id, this.since());
    if (login === undefined) throw notFound();
    return login;
  }
}
