/**
 * GitLab CI: the `apply` job (pipelines of pushes to the default branch: a merge) and the `rotate` job (scheduled
 * pipelines), as GitHub's apply.yml does them (./github-apply.ts): one at a time per stack (`resource_group`) and
 * under the state's lock, a saved plan applied only when it is what the merge request's note showed (the hidden
 * summary line, ./review-carry.ts) or, on the schedule, only token rotations due. Written only with a pg backend.
 */
import { LOCK_TIMEOUT, engineCommand, type ScaffoldContext } from "./context";
import { printPlanDiagnostics } from "./plan-log";
import { reviewedFrom } from "./review-carry";
import { stackInit } from "./state-init";

function applyScript(c: ScaffoldContext, mode: "merge" | "rotation"): string {
  const engine = engineCommand(c);
  const api = '"$CI_API_V4_URL/projects/$CI_PROJECT_ID';
  const find =
    mode === "merge"
      ? `    # The merge request this commit merged, and the summary line of the stack's note there (none: nothing was reviewed).
    - |
      mr=$(curl -fsS --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" ${api}/repository/commits/$CI_COMMIT_SHA/merge_requests" | node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const m=JSON.parse(s)[0];if(m)console.log(m.iid)})')
      echo "$mr" > merged-mr
      : > reviewed.json
      if [ -n "$mr" ]; then
        curl -fsS --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" ${api}/merge_requests/$mr/notes?per_page=100&sort=desc" | node -e 'const m=process.argv[1];let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const n=JSON.parse(s).find(n=>n.body.startsWith(m));if(n)process.stdout.write(n.body)})' "<!-- mgmt-plan-report:$STACK -->" | ${reviewedFrom("reviewed.json")}
      fi
`
      : "";
  const gate =
    mode === "merge"
      ? `      title="Apply: $STACK"
      if [ ! -s reviewed.json ]; then
        { echo "## $title"; echo; echo ":x: **Nothing applied: no reviewed plan.** This commit's merge request has no plan note for $STACK with a summary (the plan failed, or the change reached the default branch without a merge request). Open a merge request, let its plan be reviewed, and merge it."; } > result.md
        touch refused
      else
        npx mgmt plan-report --plan plan.json --reviewed reviewed.json --detailed-exitcode --title "$title" > report.md || code=$?
      fi
      why=":x: **Nothing applied: the plan made now is not the one review saw** (drift, or another change, since the merge request's last plan). Plan it again in a merge request and review that."
      what="the plan below, as review saw it"`
      : `      title="Rotation: $STACK"
      npx mgmt plan-report --plan plan.json --rotations-only --detailed-exitcode --title "$title" > report.md || code=$?
      why="**Nothing applied: the plan does more than rotate tokens.** Those changes are left to review (the drift job reports them)."
      what="the token rotations below, due under renew_before"`;
  return `  script:
    - export MGMT_TOKEN="\${MGMT_APPLY_TOKEN:?set MGMT_APPLY_TOKEN, a token that can change what the stack manages, as a masked and protected CI/CD variable}"
    - rm -f result.md report.md refused
${find}    # With the state's lock (no -lock=false): the saved plan is what is applied below, and nothing else.
    - |
      cd "cdktf.out/stacks/$STACK"
${stackInit(c, "      ", '"$CI_PROJECT_DIR/init.log"')}      status=0
      npx mgmt warm -- sh -c '${engine} plan -json -input=false -out=apply.tfplan > "$CI_PROJECT_DIR/plan.log.jsonl" && ${engine} show -no-color apply.tfplan && ${engine} show -json apply.tfplan > "$CI_PROJECT_DIR/plan.json"' || status=$?
      cd "$CI_PROJECT_DIR"
      if [ "$status" -ne 0 ]; then
        rm -f "cdktf.out/stacks/$STACK/apply.tfplan"
        ${printPlanDiagnostics("plan.log.jsonl")}
        exit "$status"
      fi
    # 0: nothing to apply; 2: apply the saved plan; 3: ${mode === "merge" ? "not what review saw" : "not only rotations"} (the note and the log say which).
    - |
      code=0
${gate}
      case "$code" in
        0) [ -e refused ] || { echo "## $title"; echo; echo "Nothing to apply: the plan has no changes."; } > result.md ;;
        2)
          cd "cdktf.out/stacks/$STACK"
          status=0
          npx mgmt warm -- ${engine} apply -input=false -no-color apply.tfplan || status=$?
          rm -f apply.tfplan
          cd "$CI_PROJECT_DIR"
          if [ "$status" -ne 0 ]; then exit "$status"; fi
          { head -n 1 report.md; echo; echo ":white_check_mark: **Applied: $what** ($CI_JOB_URL)."; tail -n +2 report.md; } > result.md
          ;;
        3)
          ${mode === "merge" ? "touch refused" : ":"}
          { head -n 1 report.md; echo; echo "$why"; tail -n +2 report.md; } > result.md
          ;;
        *) exit "$code" ;;
      esac
      rm -f "cdktf.out/stacks/$STACK/apply.tfplan" plan.json
      cat result.md
      # Last, after_script having posted the result: a merge that was not applied fails its pipeline.
      if [ -e refused ]; then echo "Nothing was applied: the plan made now is not what the merge request's review saw."; exit 3; fi
`;
}

/** The merged merge request's note with the result (or, when the job failed before one was written, that it failed). */
const postResult = `  after_script:
    - |
      rm -f "cdktf.out/stacks/$STACK/apply.tfplan" plan.json
      if [ ! -s result.md ]; then printf '## Apply: %s\\n\\n:x: **The apply job failed.** See the log: %s\\n' "$STACK" "$CI_JOB_URL" > result.md; fi
      mr=$(cat merged-mr 2>/dev/null || true)
      if [ -n "$mr" ]; then
        body=$(node -e 'process.stdout.write(JSON.stringify({body:"<!-- mgmt-apply-report:"+process.argv[1]+" -->\\n"+require("fs").readFileSync("result.md","utf8")}))' "$STACK")
        curl -fsS -X POST --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$body" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$mr/notes" > /dev/null
      fi
`;

export function gitlabApplyJobs(c: ScaffoldContext): string {
  if (c.backend !== "pg") return "";
  const common = `  stage: deploy
  # One apply of a stack at a time, merges and rotations alike (GitLab queues the others; none is cancelled).
  resource_group: mgmt-apply-$STACK
  variables:
    # Another apply (a deploy from a laptop) may hold the state's lock: wait for it.
    TF_CLI_ARGS_plan: "${LOCK_TIMEOUT}"
    TF_CLI_ARGS_apply: "${LOCK_TIMEOUT}"
`;
  return `
# A merge to the default branch: apply the saved plan only if it is what the merge request's note showed.
apply:
${common}  rules:
    - if: $CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
${applyScript(c, "merge")}${postResult}  artifacts:
    when: always
    paths: [result.md]

# Scheduled pipelines: apply only token rotations due under renew_before; anything else is left to review.
rotate:
${common}  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
${applyScript(c, "rotation")}  artifacts:
    when: always
    paths: [result.md]
`;
}
