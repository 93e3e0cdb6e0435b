/** `/profile/apps`, `/profile/devices`, `/profile/logins`: read and revoke only. */
import { AuthorizedApp, EmptyBody, Login, PageQuery, TrustedDevice, paginated } from "../../../contract";
import type { Domain } from "../../domain";
import { parseInput } from "../errors";
import { answer, appView, deviceView, loginView, pageView } from "../present";
import { pathId, type Router } from "../router";

const AppPage = paginated(AuthorizedApp);
const DevicePage = paginated(TrustedDevice);
const LoginPage = paginated(Login);

export function sessionRoutes(r: Router, domain: Domain): void {
  r.get("/profile/apps", "account:read_only", async ({ req, actor }) =>
    answer(AppPage, pageView(await domain.oauth.listApps(actor, parseInput(PageQuery, req.query, "Query")), appView)),
  );
  r.get("/profile/apps/:appId", "account:read_only", async ({ req, actor }) =>
    answer(AuthorizedApp, appView(await domain.oauth.getApp(actor, pathId(req, "appId")))),
  );
  r.delete("/profile/apps/:appId", "account:read_write", async ({ req, actor }) => {
    await domain.oauth.revokeApp(actor, pathId(req, "appId"));
    return answer(EmptyBody, {});
  });

  r.get("/profile/devices", "account:read_only", async ({ req, actor }) =>
    answer(DevicePage, pageView(await domain.devices.list(actor, parseInput(PageQuery, req.query, "Query")), deviceView)),
  );
  r.get("/profile/devices/:deviceId", "account:read_only", async ({ req, actor }) =>
    answer(TrustedDevice, deviceView(await domain.devices.get(actor, pathId(req, "deviceId")))),
  );
  r.delete("/profile/devices/:deviceId", "account:read_write", async ({ req, actor }) => {
    await domain.devices.revoke(actor, pathId(req, "deviceId"));
    return answer(EmptyBody, {});
  });

  r.get("/profile/logins", "account:read_only", async ({ req, actor }) =>
    answer(LoginPage, pageView(await domain.logins.list(actor, parseInput(PageQuery, req.query, "Query")), loginView)),
  );
  r.get("/profile/logins/:loginId", "account:read_only", async ({ req, actor }) =>
    answer(Login, loginView(await domain.logins.get(actor, pathId(req, "loginId")))),
  );
}
