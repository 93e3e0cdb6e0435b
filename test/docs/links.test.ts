/** @tier unit */
/**
 * Every relative link in the README and under docs/ names a file of the repository, and every
 * `#anchor` into a Markdown file names one of its headings or anchors (GitHub's slugs): pages move, and a
 * moved page must take its links along.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "../../src/harness/paths";

const ROOT = repoRoot();

const pages = [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(ROOT, "docs", f)),
];

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** A page's text without its fenced code blocks, where `#` starts a comment, not a heading, and `](` is code. */
const prose = (file: string): string => readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
/** The anchors a page offers: its headings' slugs and its `<a id>`s (tfplugindocs writes those for nested blocks). */
const anchors = (file: string): Set<string> => {
  const text = prose(file);
  return new Set([...[...text.matchAll(/^#+\s+(.*)$/gm)].map((m) => slug(m[1]!)), ...[...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]!)]);
};

function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    const [path, anchor] = target!.split("#") as [string, string | undefined];
    const file = path === "" ? page : resolve(dirname(page), path);
    if (!existsSync(file)) broken.push(`${target} (no ${relative(ROOT, file)})`);
    else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor)) broken.push(`${target} (no heading #${anchor})`);
  }
  return broken;
}

describe("documentation links", () => {
  it("finds the pages", () => {
    expect(pages.map((p) => relative(ROOT, p))).toEqual(expect.arrayContaining(["README.md", "docs/architecture.md", "docs/gaps.md"]));
  });

  it.each(pages.map((p) => [relative(ROOT, p), p]))("%s: every relative link resolves", (_name, page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it("slugs headings as GitHub does", () => {
    expect(slug("Reliability: what real clients send, hostile input, slow clients")).toBe("reliability-what-real-clients-send-hostile-input-slow-clients");
    expect(slug("`mgmt serve` on bad days")).toBe("mgmt-serve-on-bad-days");
  });
});
