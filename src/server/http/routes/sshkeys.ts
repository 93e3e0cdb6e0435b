/** `/profile/sshkeys`. */
import { EmptyBody, PageQuery, SshKey, SshKeyCreate, SshKeyUpdateBody, paginated } from "../../../contract";
import type { Domain } from "../../domain";
import { parseInput } from "../errors";
import { answer, pageView, sshKeyView } from "../present";
import { pathId, type Router } from "../router";

const SshKeyPage = paginated(SshKey);

export function sshKeyRoutes(r: Router, domain: Domain): void {
  r.get("/profile/sshkeys", "account:read_only", async ({ req, actor }) => {
    const query = parseInput(PageQuery, req.query, "Query");
    return answer(SshKeyPage, pageView(await domain.sshKeys.list(actor, query), sshKeyView));
  });

  r.post("/profile/sshkeys", "account:read_write", async ({ req, actor }) => {
    const input = parseInput(SshKeyCreate, req.body);
    return answer(SshKey, sshKeyView(await domain.sshKeys.create(actor, input)));
  });

  r.get("/profile/sshkeys/:sshKeyId", "account:read_only", async ({ req, actor }) =>
    answer(SshKey, sshKeyView(await domain.sshKeys.get(actor, pathId(req, "sshKeyId")))),
  );

  r.put("/profile/sshkeys/:sshKeyId", "account:read_write", async ({ req, actor }) => {
    const id = pathId(req, "sshKeyId");
    const change = parseInput(SshKeyUpdateBody, req.body);
    return answer(SshKey, sshKeyView(await domain.sshKeys.update(actor, id, change)));
  });

  r.delete("/profile/sshkeys/:sshKeyId", "account:read_write", async ({ req, actor }) => {
    await domain.sshKeys.delete(actor, pathId(req, "sshKeyId"));
    return answer(EmptyBody, {});
  });
}
