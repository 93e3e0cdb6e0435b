/** `/profile/tokens`. */
import { EmptyBody, PageQuery, PersonalAccessToken, TokenCreate, TokenUpdate, paginated } from "../../../contract";
import type { Domain } from "../../domain";
import { parseInput } from "../errors";
import { answer, pageView, tokenView } from "../present";
import { pathId, type Router } from "../router";

const TokenPage = paginated(PersonalAccessToken);

export function tokenRoutes(r: Router, domain: Domain): void {
  r.get("/profile/tokens", "account:read_only", async ({ req, actor }) => {
    const query = parseInput(PageQuery, req.query, "Query");
    return answer(TokenPage, pageView(await domain.tokens.list(actor, query), (t) => tokenView(t)));
  });

  r.post("/profile/tokens", "account:read_write", async ({ req, actor }) => {
    const input = parseInput(TokenCreate, req.body);
    const { record, token } = await domain.tokens.create(actor, input);
    return answer(PersonalAccessToken, tokenView(record, token));
  });

  r.get("/profile/tokens/:tokenId", "account:read_only", async ({ req, actor }) =>
    answer(PersonalAccessToken, tokenView(await domain.tokens.get(actor, pathId(req, "tokenId")))),
  );

  r.put("/profile/tokens/:tokenId", "account:read_write", async ({ req, actor }) => {
    const id = pathId(req, "tokenId");
    const change = parseInput(TokenUpdate, req.body);
    return answer(PersonalAccessToken, tokenView(await domain.tokens.update(actor, id, change)));
  });

  r.delete("/profile/tokens/:tokenId", "account:read_write", async ({ req, actor }) => {
    await domain.tokens.revoke(actor, pathId(req, "tokenId"));
    return answer(EmptyBody, {});
  });
}
