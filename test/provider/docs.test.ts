import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exampleReader } from "../../src/cli/docs";
import { renderDocs } from "../../src/provider/docs";
import { createProvider } from "../../src/provider";

const root = join(__dirname, "..", "..");
const docsDir = join(root, "docs", "reference");
const pages = renderDocs(exampleReader(join(root, "examples")));
const pageOf = (path: string) => pages.find((p) => p.path === path)!.content;

describe("generated reference docs", () => {
  it("has a page for the provider and every resource and data source", () => {
    const s = createProvider().schemas();
    const expected = ["index.md", ...Object.keys(s.resources).map((t) => `resources/${t.slice(5)}.md`), ...Object.keys(s.dataSources).map((t) => `data-sources/${t.slice(5)}.md`)];
    expect(pages.map((p) => p.path).sort()).toEqual(expected.sort());
  });

  it.each(pages.map((p) => [p.path, p.content]))("docs/reference/%s is up to date (run `npm run docs`)", (path, content) => {
    expect(readFileSync(join(docsDir, path), "utf8")).toBe(content);
  });

  it("gives every resource its example and an import section", () => {
    for (const type of Object.keys(createProvider().schemas().resources)) {
      const content = pageOf(`resources/${type.slice(5)}.md`);
      expect(content).toContain("## Example Usage");
      expect(content).toContain(readFileSync(join(root, "examples", "resources", type, "resource.tf"), "utf8").trimEnd());
      expect(content).toMatch(new RegExp(`## Import[\\s\\S]*import \\{\\n  to = ${type}\\.example`));
      expect(content).toContain(readFileSync(join(root, "examples", "resources", type, "import.sh"), "utf8").trimEnd());
    }
  });

  it("marks secrets sensitive and states the plan rules the declarations carry", () => {
    expect(pageOf("index.md")).toMatch(/`token` \(string, sensitive\)/);
    expect(pageOf("resources/token.md")).toMatch(/`token` \(string, sensitive\)/);
    expect(pageOf("resources/oauth_client.md")).toMatch(/`secret` \(string, sensitive\)/);
    expect(pageOf("resources/token.md")).toMatch(/`scopes` \(string\) .*Changing it replaces the object\./);
    expect(pageOf("resources/oauth_client.md")).toMatch(/`public` \(bool\) .*Defaults to `false`\./);
  });

  it("documents nested objects in their own sections", () => {
    const profile = pageOf("data-sources/profile.md");
    expect(profile).toContain("### Nested Schema for `referrals`");
    expect(profile).toMatch(/- `code` \(string\) The referral code\./);
  });
});
