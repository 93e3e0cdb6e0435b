/** @tier unit */
/**
 * Facts of the API written once, in the contract, and used from there by the server, the client
 * and the provider: a literal that restates one elsewhere in src/ drifts the day the contract
 * changes. Each fact names its home and the shapes a restatement takes.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { repoPath } from "../../src/harness/paths";

interface Fact {
  readonly what: string;
  readonly home: string;
  readonly restated: readonly RegExp[];
}

const FACTS: readonly Fact[] = [
  { what: "the wire time format", home: "src/contract/timestamps.ts", restated: [/\\d\{4\}-\\d\{2\}-\\d\{2\}T\\d\{2\}:/] },
  {
    what: "reading and cutting the wire form and UTC days",
    home: "src/contract/timestamps.ts",
    restated: [/toISOString\(\)\.slice\(0, (10|19)\)/, /new Date\(`\$\{[^`]*\}(Z|T00:00:00Z)`\)/],
  },
  { what: "the OAuth client statuses", home: "src/contract/enums.ts", restated: [/"active"\s*[,|]\s*"disabled"/, /active, disabled or suspended/] },
  {
    what: "an OAuth client's `public` default",
    home: "src/contract/field-rules.ts",
    restated: [/public\s*(\?\?|:)\s*false\b/],
  },
  { what: "how the API mints tokens and client secrets", home: "src/contract/field-rules.ts", restated: [/\[0-9a-f\]\{64\}/] },
  {
    what: "a bearer token's text",
    home: "src/contract/field-rules.ts",
    restated: [/A-Za-z0-9\._~\+\/-\]/, /1 to 256 of/],
  },
  { what: "a private key's armour", home: "src/contract/sshkey-format.ts", restated: [/BEGIN \[A-Z0-9/] },
  {
    what: "the US zip and state rule",
    home: "src/contract/field-rules.ts",
    restated: [/\\d\{5\}\(-\\d\{4\}\)/, /must be a (valid )?US zip code/, /two-letter (US state|Canadian province) code/],
  },
];

const sources = readdirSync(repoPath("src"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".ts") && !f.includes("/gen/"))
  .map((f) => join(repoPath("src"), f));

/** Every `file:line` outside the fact's home whose text restates it. */
function restatements(fact: Fact): string[] {
  const out: string[] = [];
  for (const file of sources) {
    const rel = relative(repoPath(), file);
    if (rel === fact.home) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (fact.restated.some((re) => re.test(line))) out.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

it.each(FACTS.map((f) => [f.what, f] as const))("%s has one home", (_what, fact) => {
  expect(restatements(fact)).toEqual([]);
});

it("finds a restatement where there is one", () => {
  const home = FACTS[0]!;
  // Its own home restates it by definition: the search sees it there.
  expect(restatements({ ...home, home: "elsewhere" }).some((hit) => hit.startsWith(home.home))).toBe(true);
});
