/**
 * How the apply job learns what review saw: the plan job writes the JSON summary's actions per address into
 * its comment (or merge-request note) as one hidden line, and the apply job reads that line back from the
 * comment of the pull request the merged commit belongs to. A comment rather than an artifact: it is what
 * the reviewer saw, it outlives the artifact's retention, and the apply job finds it with the one token it
 * already has. Addresses and actions only, never values (the summary holds none); base64, so that no address
 * can close the HTML comment.
 */

/** The hidden line's start; the summary follows it in base64, then ` -->`. */
const SUMMARY_MARKER = "<!-- mgmt-plan-summary:";

/** A shell command printing the hidden line for the JSON summary in `file` (the output of `plan-report --format json`). */
export const summaryLine = (file: string): string =>
  `node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const s={changes:r.changes.map(c=>({address:c.address,actions:c.actions}))};console.log("${SUMMARY_MARKER}"+Buffer.from(JSON.stringify(s)).toString("base64")+" -->")' ${file}`;

/**
 * A shell pipeline stage: reads comment bodies on stdin, writes the reviewed summary (JSON) of the last hidden
 * line to `out`, which stays empty when there is none (a failed plan, a synth that stopped, no plan job ran).
 */
export const reviewedFrom = (out: string): string =>
  `node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const m=[...s.matchAll(/<!-- mgmt-plan-summary:([A-Za-z0-9+\\/=]*) -->/g)].pop();require("fs").writeFileSync(process.argv[1],m?Buffer.from(m[1],"base64").toString("utf8"):"")})' ${out}`;
