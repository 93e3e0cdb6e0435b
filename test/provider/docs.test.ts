import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderDocs } from "../../src/provider/docs";
import { createProvider } from "../../src/provider";

const docsDir = join(__dirname, "..", "..", "docs", "reference");

describe("generated reference docs", () => {
  const pages = renderDocs();

  it("has a page for the provider and every resource and data source", () => {
    const s = createProvider().schemas();
    const expected = ["index.md", ...Object.keys(s.resources).map((t) => `resources/${t.slice(5)}.md`), ...Object.keys(s.dataSources).map((t) => `data-sources/${t.slice(5)}.md`)];
    expect(pages.map((p) => p.path).sort()).toEqual(expected.sort());
  });

  it.each(renderDocs().map((p) => [p.path, p.content]))("docs/reference/%s is up to date (run `npm run docs`)", (path, content) => {
    expect(readFileSync(join(docsDir, path), "utf8")).toBe(content);
  });

  it("marks the token sensitive and lists every attribute", () => {
    const index = pages.find((p) => p.path === "index.md")!.content;
    expect(index).toMatch(/`token` \(string, sensitive\)/);
    const sshKey = pages.find((p) => p.path === "resources/ssh_key.md")!.content;
    for (const name of ["id", "label", "ssh_key", "created"]) expect(sshKey).toContain(`\`${name}\``);
  });
});
