/** A login as `mgmt_account_logins` and `mgmt_profile_logins` show it. */
import type { Login } from "../../contract/sessions";
import { bool, int, string } from "../framework/attributes";
import type { Attributes, StateOf } from "../framework/value-types";
import { toRfc3339 } from "../timestamps";
import { instantAttribute } from "./filter";

export const loginAttributes = {
  id: int("computed", "The login's id."),
  datetime: instantAttribute("When the login was initiated."),
  ip: string("computed", "Remote address that requested the login."),
  restricted: bool("computed", "Whether the user was restricted."),
  status: string("computed", "successful or failed."),
  username: string("computed", "The user that logged in."),
} satisfies Attributes;

export const loginValue = (l: Login): StateOf<typeof loginAttributes> => ({
  id: l.id,
  datetime: toRfc3339(l.datetime),
  ip: l.ip,
  restricted: l.restricted,
  status: l.status,
  username: l.username,
});
