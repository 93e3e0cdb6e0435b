/** Preferences: any JSON object, one set per OAuth client (`/profile/preferences`). */
import { z } from "zod";

export const PREFERENCES_MAX_LENGTH = 65_535;

export const Preferences = z.record(z.string(), z.unknown());
export type Preferences = z.infer<typeof Preferences>;

/** The body of `PUT /profile/preferences`: a JSON object of at most 65,535 characters (as JSON text). */
export const PreferencesBody = Preferences.superRefine((value, ctx) => {
  if (JSON.stringify(value).length > PREFERENCES_MAX_LENGTH) {
    ctx.addIssue({ code: "custom", message: `Preferences must be ${PREFERENCES_MAX_LENGTH} characters or less as JSON` });
  }
});
