/**
 * The admin namespace's modules: the extension point. An area that needs admin endpoints
 * (billing: child accounts, proxy users...) writes `src/server/admin/<area>.ts` exporting an
 * `AdminModule` and adds it to this list (one import, one entry). Endpoints are registered
 * with `r.get/post/put/delete(path, summary, handler)` under `/__admin`, behind the admin
 * credential, and are listed by `GET /__admin`.
 */
import type { AdminModule } from "./context";
import { coreAdmin } from "./core";
import { billingAdmin } from "./billing";

export const ADMIN_MODULES: readonly AdminModule[] = [coreAdmin, billingAdmin];
