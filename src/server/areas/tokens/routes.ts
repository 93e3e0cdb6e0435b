/** `/profile/tokens`. */
import { API_FILTERABLE, EmptyBody, PersonalAccessToken, TokenCreate, TokenUpdate } from "../../../contract";
import type { TokenService } from "./service";
import { answer, pageView } from "../../http/present";
import { pathId, type Router } from "../../http/router";
import type { TokenRecord } from "../../domain/records";

export const tokenView = (token: TokenRecord, fullValue?: string): PersonalAccessToken => ({
  id: token.id,
  label: token.label,
  scopes: token.scopes,
  created: token.created,
  expiry: token.expiry,
  token: fullValue ?? token.token_prefix,
});

export function tokenRoutes(r: Router, domain: { tokens: TokenService }): void {
  r.list(
    "/profile/tokens",
    "account:read_only",
    { item: PersonalAccessToken, filter: API_FILTERABLE["/profile/tokens"], summary: "List personal access tokens" },
    async ({ actor }, query) => pageView(await domain.tokens.list(actor, query), (t) => tokenView(t)),
  );

  r.post(
    "/profile/tokens",
    "account:read_write",
    { summary: "Create a personal access token", body: TokenCreate, response: PersonalAccessToken },
    async ({ actor, body }) => {
      const input = body();
      const { record, token } = await domain.tokens.create(actor, input);
      return answer(PersonalAccessToken, tokenView(record, token));
    },
  );

  r.get("/profile/tokens/:tokenId", "account:read_only", { summary: "View a personal access token", response: PersonalAccessToken }, async ({ req, actor }) =>
    answer(PersonalAccessToken, tokenView(await domain.tokens.get(actor, pathId(req, "tokenId")))),
  );

  r.put(
    "/profile/tokens/:tokenId",
    "account:read_write",
    { summary: "Update a personal access token", body: TokenUpdate, response: PersonalAccessToken },
    async ({ req, actor, body }) => {
      const id = pathId(req, "tokenId");
      const change = body();
      return answer(PersonalAccessToken, tokenView(await domain.tokens.update(actor, id, change)));
    },
  );

  r.delete("/profile/tokens/:tokenId", "account:read_write", { summary: "Revoke a personal access token", response: EmptyBody }, async ({ req, actor }) => {
    await domain.tokens.revoke(actor, pathId(req, "tokenId"));
    return answer(EmptyBody, {});
  });
}
