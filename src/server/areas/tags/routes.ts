/** `/tags`: unrestricted users only (the domain checks). */
import type { FastifyRequest } from "fastify";
import { API_FILTERABLE, EmptyBody, Tag, TagCreate, TaggedObject } from "../../../contract";
import type { TagService } from "./service";
import { notFound } from "../../domain/errors";
import { answer, pageView } from "../../http/present";
import type { Router } from "../../http/router";

/** The tag label from the path (already percent-decoded by the router). */
function tagLabel(req: FastifyRequest): string {
  const label = (req.params as Record<string, unknown>).tagLabel;
  if (typeof label !== "string" || label.length === 0) throw notFound();
  return label;
}

export function tagRoutes(r: Router, domain: { tags: TagService }): void {
  r.list("/tags", "account:read_only", { item: Tag, filter: API_FILTERABLE["/tags"], summary: "List tags" }, async ({ actor }, query) =>
    pageView(await domain.tags.list(actor, query), (t) => ({ label: t.label })),
  );

  r.post("/tags", "account:read_write", { summary: "Create a tag", body: TagCreate, response: Tag }, async ({ actor, body }) => {
    const input = body();
    const tag = await domain.tags.create(actor, input);
    return answer(Tag, { label: tag.label });
  });

  r.list("/tags/:tagLabel", "account:read_only", { item: TaggedObject, summary: "List the objects carrying a tag" }, async ({ req, actor }, query) =>
    domain.tags.objectsOf(actor, tagLabel(req), query),
  );

  r.delete("/tags/:tagLabel", "account:read_write", { summary: "Delete a tag", response: EmptyBody }, async ({ req, actor }) => {
    await domain.tags.delete(actor, tagLabel(req));
    return answer(EmptyBody, {});
  });
}
