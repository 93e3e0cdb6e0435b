/** `/profile/sshkeys`. */
import { API_FILTERABLE, EmptyBody, SshKey, SshKeyCreate, SshKeyUpdateBody } from "../../../contract";
import type { SshKeyService } from "./service";
import { answer, pageView } from "../../http/present";
import { pathId, type Router } from "../../http/router";
import type { SshKeyRecord } from "./store";

export const sshKeyView = (key: SshKeyRecord): SshKey => ({ id: key.id, label: key.label, ssh_key: key.ssh_key, created: key.created });

export function sshKeyRoutes(r: Router, domain: { sshKeys: SshKeyService }): void {
  r.list(
    "/profile/sshkeys",
    "account:read_only",
    { item: SshKey, filter: API_FILTERABLE["/profile/sshkeys"], summary: "List SSH keys", mark: () => domain.sshKeys.listMark() },
    async ({ actor }, query) => pageView(await domain.sshKeys.list(actor, query), sshKeyView),
  );

  r.post("/profile/sshkeys", "account:read_write", { summary: "Add an SSH key", body: SshKeyCreate, response: SshKey }, async ({ actor, body }) => {
    const input = body();
    return answer(SshKey, sshKeyView(await domain.sshKeys.create(actor, input)));
  });

  r.get("/profile/sshkeys/:sshKeyId", "account:read_only", { summary: "View an SSH key", response: SshKey }, async ({ req, actor }) =>
    answer(SshKey, sshKeyView(await domain.sshKeys.get(actor, pathId(req, "sshKeyId")))),
  );

  r.put(
    "/profile/sshkeys/:sshKeyId",
    "account:read_write",
    { summary: "Update an SSH key's label", body: SshKeyUpdateBody, response: SshKey },
    async ({ req, actor, body }) => {
      const id = pathId(req, "sshKeyId");
      const change = body();
      return answer(SshKey, sshKeyView(await domain.sshKeys.update(actor, id, change)));
    },
  );

  r.delete("/profile/sshkeys/:sshKeyId", "account:read_write", { summary: "Delete an SSH key", response: EmptyBody }, async ({ req, actor }) => {
    await domain.sshKeys.delete(actor, pathId(req, "sshKeyId"));
    return answer(EmptyBody, {});
  });
}
