/**
 * GitHub Actions: apply.yml, the job that changes the account. On a push to the default branch (a merge) it
 * applies each stack's saved plan only when its actions per address are those the pull request's comment
 * showed (the hidden summary line the plan job writes, ./review-carry.ts); on the schedule it applies only
 * token rotations due under renew_before. Anything else it applies nothing, says why, and (after a merge)
 * fails. Written only with a shared (pg) state: with local state a CI apply would start from nothing each time.
 */
import { ciSynth } from "./cdk";
import { LOCK_TIMEOUT, engineCommand, type ScaffoldContext } from "./context";
import { jobEnv, setupSteps } from "./github";
import { printPlanDiagnostics } from "./plan-log";
import { reviewedFrom } from "./review-carry";
import { stackInit } from "./state-init";

/** When the scheduled rotation runs: daily, before the drift check (17 6 * * *), so drift sees the rotated state. */
const GITHUB_ROTATION_CRON = "41 5 * * *";

export function applyWorkflow(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  return `# The account changes here, and only here. Per stack, one run at a time (the concurrency group; a running
# apply is never cancelled) and under the state's lock:
#   push to main (a merge)  a saved plan (-out) is made and compared with the last plan the merged pull request's
#                           comment showed (its actions per address); the saved plan is applied only when they
#                           match. Otherwise (drift or another merge in between, no reviewed plan) nothing is
#                           applied, the pull request and the job summary say why, and the job fails.
#   schedule / by hand      the saved plan is applied only when its only changes are token rotations due under
#                           renew_before (\`mgmt plan-report --rotations-only\`); any other change is left to a pull
#                           request (the drift job reports it) and nothing is applied.
# The result is posted on the merged pull request and in the job summary. The plan file holds secrets: it is
# applied and removed, never uploaded.
#
# Settings it reads:
#   secrets.MGMT_APPLY_TOKEN  a token that can change what the stacks manage (kept out of the stacks themselves:
#                             docs/guides/team-repository.md, "The CI's own token")
#   vars.MGMT_URL             the API root, e.g. https://api.example.test/v4
#   secrets.PG_CONN_STR       the Postgres connection string of the shared state
name: apply

on:
  push:
    branches: [main]
  schedule:
    - cron: "${GITHUB_ROTATION_CRON}"
  workflow_dispatch:

permissions:
  contents: read
  pull-requests: write

jobs:
  apply:
    runs-on: ubuntu-latest
    # One apply of a stack at a time, merges and rotations alike; a running apply is never cancelled. GitHub keeps
    # only the newest waiting run of a group: a merge whose run it drops is in the next run's plan, which then
    # differs from what that run's review saw, so nothing unreviewed is applied.
    concurrency:
      group: apply-\${{ matrix.stack }}
      cancel-in-progress: false
    strategy:
      fail-fast: false
      matrix:
        stack: [${c.stack}]
    env:
${jobEnv(c, "MGMT_APPLY_TOKEN")}      # Another apply (a deploy from a laptop) may hold the state's lock: wait for it.
      TF_CLI_ARGS_plan: "${LOCK_TIMEOUT}"
      TF_CLI_ARGS_apply: "${LOCK_TIMEOUT}"
      MARKER: "<!-- mgmt-plan-report:\${{ matrix.stack }} -->"
    steps:
${setupSteps(
  c,
  `      - name: Synthesize
        run: ${ciSynth(c)}
`,
)}
      # The pull request this commit merged, and the summary line of the stack's comment there (none: nothing was reviewed).
      - name: Find what review saw
        id: review
        if: github.event_name == 'push'
        run: |
          pr=$(gh api "repos/$GITHUB_REPOSITORY/commits/$GITHUB_SHA/pulls" --jq '.[0].number // empty')
          echo "pr=$pr" >> "$GITHUB_OUTPUT"
          : > "$RUNNER_TEMP/reviewed.json"
          if [ -n "$pr" ]; then
            gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$pr/comments" --jq ".[] | select(.body | startswith(\\"$MARKER\\")) | .body" | ${reviewedFrom('"$RUNNER_TEMP/reviewed.json"')}
          fi

      # With the state's lock (no -lock=false): the saved plan is what the next step applies, and nothing else.
      - name: Plan
        working-directory: cdktf.out/stacks/\${{ matrix.stack }}
        run: |
${stackInit(c, "          ", '"$RUNNER_TEMP/init.log"')}          status=0
          npx mgmt warm -- sh -c '${engine} plan -json -input=false -out=apply.tfplan > "$RUNNER_TEMP/plan.log.jsonl" && ${engine} show -no-color apply.tfplan && ${engine} show -json apply.tfplan > "$RUNNER_TEMP/plan.json"' || status=$?
          if [ "$status" -ne 0 ]; then
            rm -f apply.tfplan
            ${printPlanDiagnostics('"$RUNNER_TEMP/plan.log.jsonl"')}
            exit "$status"
          fi

      # 0: nothing to apply; 2: apply the saved plan; 3: not what review saw, or not only rotations (stderr says which).
      - name: Compare with what review saw
        id: gate
        env:
          PR: \${{ steps.review.outputs.pr }}
        run: |
          code=0
          if [ "$GITHUB_EVENT_NAME" = "push" ]; then
            title="Apply: $STACK"
            if [ ! -s "$RUNNER_TEMP/reviewed.json" ]; then
              { echo "## $title"; echo; echo ":x: **Nothing applied: no reviewed plan.** This commit's pull request${"${PR:+ #$PR}"} has no plan comment for $STACK with a summary (the plan failed, or the change reached main without a pull request). Open a pull request, let its plan be reviewed, and merge it."; } > "$RUNNER_TEMP/result.md"
              echo "refused=true" >> "$GITHUB_OUTPUT"
              exit 0
            fi
            npx mgmt plan-report --plan "$RUNNER_TEMP/plan.json" --reviewed "$RUNNER_TEMP/reviewed.json" --detailed-exitcode --title "$title" > "$RUNNER_TEMP/report.md" || code=$?
          else
            title="Rotation: $STACK"
            npx mgmt plan-report --plan "$RUNNER_TEMP/plan.json" --rotations-only --detailed-exitcode --title "$title" > "$RUNNER_TEMP/report.md" || code=$?
          fi
          case "$code" in
            0) { echo "## $title"; echo; echo "Nothing to apply: the plan has no changes."; } > "$RUNNER_TEMP/result.md" ;;
            2) echo "apply=true" >> "$GITHUB_OUTPUT" ;;
            3)
              if [ "$GITHUB_EVENT_NAME" = "push" ]; then
                why=":x: **Nothing applied: the plan made now is not the one review saw** (drift, or another change, since the pull request's last plan). Plan it again in a pull request and review that."
                echo "refused=true" >> "$GITHUB_OUTPUT"
              else
                why="**Nothing applied: the plan does more than rotate tokens.** Those changes are left to review (the drift job reports them)."
              fi
              { head -n 1 "$RUNNER_TEMP/report.md"; echo; echo "$why"; tail -n +2 "$RUNNER_TEMP/report.md"; } > "$RUNNER_TEMP/result.md"
              ;;
            *) exit "$code" ;;
          esac

      # The saved plan, never a new one: the engine refuses it if the state moved since (another apply in between).
      - name: Apply the saved plan
        id: apply
        if: steps.gate.outputs.apply == 'true'
        working-directory: cdktf.out/stacks/\${{ matrix.stack }}
        run: |
          status=0
          npx mgmt warm -- ${engine} apply -input=false -no-color apply.tfplan || status=$?
          rm -f apply.tfplan
          if [ "$status" -ne 0 ]; then exit "$status"; fi
          what="the plan below, as review saw it"
          if [ "$GITHUB_EVENT_NAME" != "push" ]; then what="the token rotations below, due under renew_before"; fi
          { head -n 1 "$RUNNER_TEMP/report.md"; echo; echo ":white_check_mark: **Applied: $what** (run $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID)."; tail -n +2 "$RUNNER_TEMP/report.md"; } > "$RUNNER_TEMP/result.md"

      # What happened, where the team looks: the job summary, and the merged pull request when there is one.
      - name: Post the result
        if: always()
        env:
          PR: \${{ steps.review.outputs.pr }}
        run: |
          rm -f "cdktf.out/stacks/$STACK/apply.tfplan"
          if [ ! -s "$RUNNER_TEMP/result.md" ]; then
            printf '## Apply: %s\\n\\n:x: **The apply job failed.** See the log: %s\\n' "$STACK" "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID" > "$RUNNER_TEMP/result.md"
          fi
          cat "$RUNNER_TEMP/result.md" >> "$GITHUB_STEP_SUMMARY"
          cat "$RUNNER_TEMP/result.md"
          if [ -n "$PR" ]; then
            { echo "<!-- mgmt-apply-report:$STACK -->"; cat "$RUNNER_TEMP/result.md"; } > "$RUNNER_TEMP/body.md"
            gh api -X POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F "body=@$RUNNER_TEMP/body.md" > /dev/null
          fi

      # Last, after the result is posted: a merge that was not applied fails its run.
      - name: Fail when the merge was not applied
        if: steps.gate.outputs.refused == 'true'
        run: |
          echo "Nothing was applied: the plan made now is not what the pull request's review saw (see the job summary)."
          exit 3
`;
}
