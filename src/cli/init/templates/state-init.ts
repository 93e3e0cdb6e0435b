/**
 * The CI jobs' `init` of a stack. On a pg backend the first `init` against an empty database creates
 * the state's schema and table, and two jobs doing so at the same moment (a pull request's plan and
 * the drift check, two stacks' plans) can collide in Postgres: `duplicate key value violates unique
 * constraint "pg_type_typname_nsp_index"`, a race in the engines' backend. The loser tries again, by
 * when both exist. A retry on that one message rather than a queue of every job on the database
 * (a concurrency group, a resource_group): the race is only ever the first init's, and a queue
 * would hold up every plan for ever after to avoid it.
 */
import type { ScaffoldContext } from "./context";
import { engineCommand } from "./context";

/** What the engine prints when it lost the race; the retry looks for nothing else. */
export const PG_INIT_RACE = "pg_type_typname_nsp_index";

/** Shell lines (at `indent`) that run init in the current folder, retrying the pg race; `log` is a scratch file. */
export function stackInit(c: ScaffoldContext, indent: string, log: string): string {
  const init = `${engineCommand(c)} init -input=false -no-color`;
  if (c.backend !== "pg") return `${indent}${init}\n`;
  return [
    `for attempt in 1 2 3; do`,
    `  if ${init} > ${log} 2>&1; then cat ${log}; break; fi`,
    `  cat ${log}`,
    `  if [ "$attempt" = 3 ] || ! grep -q ${PG_INIT_RACE} ${log}; then exit 1; fi`,
    `  echo "init: another job was creating the state's schema at the same moment; trying again"`,
    `  sleep 2`,
    `done`,
  ]
    .map((line) => `${indent}${line}\n`)
    .join("");
}
