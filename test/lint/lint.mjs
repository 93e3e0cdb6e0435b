/**
 * Lints the cases given as JSON on stdin with ESLint's Node API and the repository's config, and
 * prints each case's messages as JSON. layers.test.ts runs it in a child process because ESLint
 * loads eslint.config.mjs with a dynamic import, which Jest's module sandbox refuses.
 *
 * A case is `{ filePath, code }` (linted as if `code` were that file: the path need not exist)
 * or `{ filePath }` (a real file, linted from disk).
 */
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const eslint = new ESLint({ cwd: fileURLToPath(new URL("../..", import.meta.url)), ignore: false });
const results = [];
for (const { filePath, code } of JSON.parse(input)) {
  const [result] = code === undefined ? await eslint.lintFiles([filePath]) : await eslint.lintText(code, { filePath });
  results.push(result.messages.map(({ ruleId, message }) => ({ ruleId, message })));
}
process.stdout.write(JSON.stringify(results));
