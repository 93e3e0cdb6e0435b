/** Preferences: one JSON object per (user, OAuth client); personal access tokens share "no client". */
import type { Preferences } from "../../../contract";
import type { Actor, Deps } from "../../domain/context";
import type { ProfileRepos } from "./store";

/** The client key of personal access tokens (OAuth client ids start at 1). */
export const NO_CLIENT = 0;

export class PreferencesService {
  constructor(private readonly deps: Deps<ProfileRepos>) {}

  async get(actor: Actor): Promise<Preferences> {
    const stored = await this.deps.store.preferences.get(actor.user.id, actor.clientId ?? NO_CLIENT);
    return stored === undefined ? {} : (JSON.parse(stored) as Preferences);
  }

  /** Replaces the whole set (no merge). */
  async put(actor: Actor, preferences: Preferences): Promise<Preferences> {
    const body = JSON.stringify(preferences);
    await this.deps.store.transaction((tx) => tx.preferences.put(actor.user.id, actor.clientId ?? NO_CLIENT, body));
    return JSON.parse(body) as Preferences;
  }
}
