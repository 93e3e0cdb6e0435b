/** data mgmt_tags: the account's tags. */
import { string } from "../framework/attributes";
import { defineListDataSource } from "./list";
import { tagCollection } from "../resources/tag/collection";

export const tagsDataSource = defineListDataSource({
  typeName: "mgmt_tags",
  description: "The tags on the account (unrestricted users only), filtered by the API where it can.",
  path: tagCollection.path,
  itemsName: "tags",
  itemDescription: "The matching tags.",
  item: { label: string("computed", "The tag's label.") },
  fetch: tagCollection.list,
  toItem: (t) => ({ label: t.label }),
});
