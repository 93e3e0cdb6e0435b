/** @tier unit */
/**
 * Casts the type checker cannot follow, kept from creeping back (issue 36, "Typing finished"). A cast through
 * `unknown` (`x as unknown as T`) asserts a type with no check at all: src/ holds at most three, each where no
 * typing can say what is true (a library's private or mistyped internals), with a comment that names the cast
 * and says why. No route answers with `as never`: what it returns is the type its response schema takes.
 * Read with the TypeScript parser, so text in comments and strings is not counted.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { repoPath } from "../../src/harness/paths";

const MAX_THROUGH_UNKNOWN = 3;
/** An area's routes (`routes.ts`, `<sub>-routes.ts`). */
const ROUTES = /^src\/server\/areas\/[^/]+\/(?:[a-z-]+-)?routes\.ts$/;

interface Cast {
  readonly where: string;
  readonly kind: "through unknown" | "as never";
  /** A comment before its statement (or on its line) names the cast: "as unknown as", "cast through unknown". */
  readonly explained: boolean;
}

/** The comments a reader sees at the cast: before it and its enclosing nodes up to its statement, and after it on its line. */
function commentsAt(node: ts.Node, text: string): string {
  const found: string[] = [];
  for (let n: ts.Node = node; !ts.isSourceFile(n); n = n.parent) {
    for (const c of ts.getLeadingCommentRanges(text, n.getFullStart()) ?? []) found.push(text.slice(c.pos, c.end));
    if (ts.isStatement(n) || ts.isClassElement(n)) break;
  }
  const lineEnd = text.indexOf("\n", node.end);
  for (const c of ts.getTrailingCommentRanges(text, lineEnd < 0 ? node.end : lineEnd) ?? []) found.push(text.slice(c.pos, c.end));
  const rest = text.slice(node.end, lineEnd < 0 ? undefined : lineEnd);
  const inline = rest.indexOf("//");
  if (inline >= 0) found.push(rest.slice(inline));
  return found.join("\n");
}

/** Every cast through `unknown` and every `as never` in `text` (a file's source, named `name`). */
export function castsIn(name: string, text: string): Cast[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Cast[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node)) {
      const inner = node.expression;
      const throughUnknown = ts.isAsExpression(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword;
      const never = node.type.kind === ts.SyntaxKind.NeverKeyword;
      if (throughUnknown || never) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        out.push({
          where: `${name}:${line + 1}`,
          kind: throughUnknown ? "through unknown" : "as never",
          explained: /as unknown as|through unknown/i.test(commentsAt(node, text)),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const sources = readdirSync(repoPath("src"), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".ts") && !f.includes("/gen/"))
  .map((f) =>
    relative(repoPath(), join(repoPath("src"), f))
      .split("\\")
      .join("/"),
  );
const casts = sources.flatMap((file) => castsIn(file, readFileSync(repoPath(file), "utf8")));
const throughUnknown = casts.filter((c) => c.kind === "through unknown");

it(`src/ casts through unknown at most ${MAX_THROUGH_UNKNOWN} times`, () => {
  expect(throughUnknown.length <= MAX_THROUGH_UNKNOWN ? [] : throughUnknown.map((c) => c.where)).toEqual([]);
});

it("each cast through unknown in src/ has a comment that names it and says why", () => {
  expect(throughUnknown.filter((c) => !c.explained).map((c) => c.where)).toEqual([]);
});

it("no route answers with `as never`", () => {
  const routes = sources.filter((f) => ROUTES.test(f));
  expect(routes.length).toBeGreaterThan(10);
  expect(casts.filter((c) => c.kind === "as never" && ROUTES.test(c.where.split(":")[0]!)).map((c) => c.where)).toEqual([]);
});

describe("castsIn", () => {
  it("finds the casts in code, not in comments or strings, and whether a comment explains each", () => {
    const text = [
      "// A note that mentions as unknown as in passing.",
      'const s = "x as unknown as Y";',
      "const a = value as unknown as Foo;",
      "// Cast through unknown: the library hides the field.",
      "const b = value as unknown as Bar;",
      "const c = { n: 1 as never };",
      "const d = (value as unknown as Baz).x; // as unknown as: its declared type is wrong",
      "const e = value as Qux;",
    ].join("\n");
    expect(castsIn("x.ts", text)).toEqual([
      { where: "x.ts:3", kind: "through unknown", explained: false },
      { where: "x.ts:5", kind: "through unknown", explained: true },
      { where: "x.ts:6", kind: "as never", explained: false },
      { where: "x.ts:7", kind: "through unknown", explained: true },
    ]);
  });

  it("reads a comment before the statement a cast is part of", () => {
    const text = ["/**", " * The one `as unknown as` here: node's types do not declare it.", " */", "const f = () =>", "  g(h as unknown as Thing);"].join(
      "\n",
    );
    expect(castsIn("y.ts", text)).toEqual([{ where: "y.ts:5", kind: "through unknown", explained: true }]);
  });
});
