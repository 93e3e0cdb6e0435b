/** `/profile/devices`, `/profile/logins`: read and revoke only. */
import { EmptyBody, Login, TrustedDevice } from "../../../contract";
import type { DeviceService, LoginService } from "./service";
import { answer, pageView } from "../../http/present";
import { pathId, type Router } from "../../http/router";
import type { DeviceRecord, LoginRecord } from "./store";

export const deviceView = (d: DeviceRecord): TrustedDevice => ({
  id: d.id,
  created: d.created,
  expiry: d.expiry,
  last_authenticated: d.last_authenticated,
  last_remote_addr: d.last_remote_addr,
  user_agent: d.user_agent,
});

export const loginView = (l: LoginRecord): Login => ({
  id: l.id,
  datetime: l.datetime,
  ip: l.ip,
  restricted: l.restricted,
  status: l.status,
  username: l.username,
});

export function sessionRoutes(r: Router, domain: { devices: DeviceService; logins: LoginService }): void {
  r.list("/profile/devices", "account:read_only", { item: TrustedDevice, summary: "List trusted devices" }, async ({ actor }, query) =>
    pageView(await domain.devices.list(actor, query), deviceView),
  );
  r.get("/profile/devices/:deviceId", "account:read_only", { summary: "View a trusted device", response: TrustedDevice }, async ({ req, actor }) =>
    answer(TrustedDevice, deviceView(await domain.devices.get(actor, pathId(req, "deviceId")))),
  );
  r.delete("/profile/devices/:deviceId", "account:read_write", { summary: "Revoke a trusted device", response: EmptyBody }, async ({ req, actor }) => {
    await domain.devices.revoke(actor, pathId(req, "deviceId"));
    return answer(EmptyBody, {});
  });

  r.list("/profile/logins", "account:read_only", { item: Login, summary: "List logins of the last 90 days" }, async ({ actor }, query) =>
    pageView(await domain.logins.list(actor, query), loginView),
  );
  r.get("/profile/logins/:loginId", "account:read_only", { summary: "View a login", response: Login }, async ({ req, actor }) =>
    answer(Login, loginView(await domain.logins.get(actor, pathId(req, "loginId")))),
  );
}
