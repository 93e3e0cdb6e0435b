/** The acting user's profile. */
import type { UserRecord } from "../store/store";
import type { Actor, Deps } from "./context";
import { invalidToken } from "./errors";

export class ProfileService {
  constructor(private readonly deps: Deps) {}

  async get(actor: Actor): Promise<UserRecord> {
    const user = await this.deps.store.users.get(actor.user.id);
    if (user === undefined) throw invalidToken();
    return user;
  }
}
