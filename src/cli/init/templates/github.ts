/**
 * GitHub Actions: plan.yml (a plan comment per stack on each pull request, edited in place) and
 * drift.yml (a daily refresh-only check that keeps one issue per stack open while drift lasts).
 * They run in the scaffolded repository: `npm ci` installs everything from its package.json and
 * packages/, and every tool is called through npx.
 */
import { cdkModule, ciNodeMajor, ciSynth, driftBindingsFlag } from "./cdk";
import { LOCK_TIMEOUT, engineCommand, type ScaffoldContext } from "./context";
import { planReportLog, printPlanDiagnostics } from "./plan-log";
import { summaryLine } from "./review-carry";
import { stackInit } from "./state-init";

/** Job environment lines shared by both workflows; `token` is the secret holding the API token. */
export function jobEnv(c: ScaffoldContext, token: string): string {
  return `      CHECKPOINT_DISABLE: "1"
      TF_IN_AUTOMATION: "1"
      TF_INPUT: "0"
      MGMT_URL: \${{ vars.MGMT_URL }}
      MGMT_TOKEN: \${{ secrets.${token} }}
      STACK: \${{ matrix.stack }}
      GH_TOKEN: \${{ github.token }}
${c.backend === "pg" ? "      # The shared state's connection string (it carries a password): a secret, read by the engine.\n      PG_CONN_STR: ${{ secrets.PG_CONN_STR }}\n" : ""}`;
}

/**
 * The plan job's synth: the MgmtPolicy Aspect writes what it finds to a file, so that a synth it stops still
 * reaches review (the comment's Policy section); any other failure of the synth fails the job here.
 */
const synthForReview = (
  c: ScaffoldContext,
) => `      # The scripts' synth strips main.ts's types without checking them: the type check, with the compiler's messages.
      - name: Type-check
        run: npm run typecheck
      - name: Synthesize
        id: synth
        env:
          MGMT_POLICY_SYNTH_JSON: \${{ runner.temp }}/synth-policy.json
        run: |
          rm -f "$MGMT_POLICY_SYNTH_JSON"
          status=0
          ${ciSynth(c)} || status=$?
          if [ "$status" -ne 0 ] && [ -s "$MGMT_POLICY_SYNTH_JSON" ] && grep -q '"passed": false' "$MGMT_POLICY_SYNTH_JSON"; then
            echo "The synth stopped on the account's rules (each finding is one line above); the comment's Policy section lists them."
            echo "stopped=true" >> "$GITHUB_OUTPUT"
            exit 0
          fi
          exit "$status"
`;

/** Checkout, node, the packages (node_modules cached on the lock file), the provider, the synthesized stacks. */
export function setupSteps(c: ScaffoldContext, synth?: string): string {
  const terraform =
    c.engine === "terraform"
      ? `      - uses: hashicorp/setup-terraform@v3
        with:
          terraform_wrapper: false
`
      : "";
  return `      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${ciNodeMajor(c)}
      # node_modules keyed on the lock file: the provider package's native addon (SQLite, for the
      # local server the tests use) is built once per lock file, not on every run.
      - uses: actions/cache@v4
        id: modules
        with:
          path: node_modules
          key: node-modules-\${{ runner.os }}-\${{ hashFiles('package-lock.json') }}
      - name: Install the packages (the provider and its bindings from packages/)
        if: steps.modules.outputs.cache-hit != 'true'
        run: npm ci
${terraform}
      - name: Install the provider where the engines find it
        run: npx mgmt install-provider

${
  synth ??
  `      - name: Synthesize
        run: ${ciSynth(c)}
`
}`;
}

/** Finds this stack's comment by its hidden marker, then edits it or adds one. */
const postComment = `          id=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$PR/comments" --jq ".[] | select(.body | startswith(\\"$marker\\")) | .id" | head -n 1)
          if [ -n "$id" ]; then
            gh api -X PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$RUNNER_TEMP/body.md" > /dev/null
          else
            gh api -X POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F "body=@$RUNNER_TEMP/body.md" > /dev/null
          fi`;

export function planWorkflow(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  const state =
    c.backend === "pg"
      ? "# State is shared in Postgres (PG_CONN_STR), so the plan shows what a merge would change."
      : '# State is local (terraform.<stack>.tfstate, not committed): a CI plan starts from no state and\n# proposes to create everything. Share state first (README.md, "Sharing state").';
  return `# Pull requests: plan every stack, check the plan against the account's rules (mgmt-policy.json), render
# both with \`mgmt plan-report\` and keep one comment per stack up to date (edited in place on each push,
# never piled up). The job fails when something errs (synth, init, plan, the report) and, after the comment
# is posted, when the plan violates a rule at error severity; changes or destroys are what review is for.
#
# Settings it reads:
#   secrets.MGMT_TOKEN  a token that can read what the stacks manage (account:read_only is enough)
#   vars.MGMT_URL       the API root, e.g. https://api.example.test/v4
${c.backend === "pg" ? "#   secrets.PG_CONN_STR the Postgres connection string of the shared state\n" : ""}${state}
name: plan

on:
  pull_request:

permissions:
  contents: read
  pull-requests: write
  # The policy check's SARIF, for code scanning.
  security-events: write

concurrency:
  group: plan-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
  plan:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        # ${cdkModule(c)} stack names: each is synthesized to cdktf.out/stacks/<stack>.
        stack: [${c.stack}]
    env:
${jobEnv(c, "MGMT_TOKEN")}      PR: \${{ github.event.pull_request.number }}
    steps:
${setupSteps(c, synthForReview(c))}
      # -lock=false: a pull request's plan only reads the state; it must neither wait for nor hold up a deploy.
      # mgmt warm: plan and show attach to one provider process rather than start their own, several times each.
      # plan -json: the engine's machine-readable log (the provider's warnings, for the report); show prints the plan here.
      - name: Plan
        if: steps.synth.outputs.stopped != 'true'
        working-directory: cdktf.out/stacks/\${{ matrix.stack }}
        run: |
${stackInit(c, "          ", '"$RUNNER_TEMP/init.log"')}          status=0
          npx mgmt warm -- sh -c '${engine} plan -json -input=false -lock=false -out=plan.tfplan > "$RUNNER_TEMP/plan.log.jsonl" && ${engine} show -no-color plan.tfplan && ${engine} show -json plan.tfplan > "$RUNNER_TEMP/plan.json"' || status=$?
          if [ "$status" -ne 0 ]; then
            ${printPlanDiagnostics('"$RUNNER_TEMP/plan.log.jsonl"')}
            exit "$status"
          fi

      # Exit 2 (a rule violated at error severity) fails the job in its last step, after the comment says which;
      # any other failure (an unreadable plan or mgmt-policy.json) fails it here.
      - name: Check the policy
        id: policy
        if: steps.synth.outputs.stopped != 'true'
        run: |
          status=0
          npx mgmt policy check --plan "$RUNNER_TEMP/plan.json" --config mgmt-policy.json --format json > "$RUNNER_TEMP/policy.json" || status=$?
          if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then exit "$status"; fi
          echo "status=$status" >> "$GITHUB_OUTPUT"
          npx mgmt policy check --plan "$RUNNER_TEMP/plan.json" --config mgmt-policy.json --format sarif --source "cdktf.out/stacks/$STACK/cdk.tf.json" > "$RUNNER_TEMP/policy.sarif" || [ "$?" -eq 2 ]

      - name: Render the comment
        if: steps.synth.outputs.stopped != 'true'
        run: |
          npx mgmt plan-report --plan "$RUNNER_TEMP/plan.json"${planReportLog('"$RUNNER_TEMP/plan.log.jsonl"')} --policy "$RUNNER_TEMP/policy.json" --title "Plan: $STACK" > "$RUNNER_TEMP/report.md"
          npx mgmt plan-report --plan "$RUNNER_TEMP/plan.json"${planReportLog('"$RUNNER_TEMP/plan.log.jsonl"')} --policy "$RUNNER_TEMP/policy.json" --format json > "$RUNNER_TEMP/report.json"
          cat "$RUNNER_TEMP/report.md" >> "$GITHUB_STEP_SUMMARY"

      - name: Post or update this stack's comment
        if: steps.synth.outputs.stopped != 'true'
        run: |
          marker="<!-- mgmt-plan-report:$STACK -->"
          # The hidden last line: the actions per address this comment shows, which the apply job compares a merge's plan with.
          { echo "$marker"; cat "$RUNNER_TEMP/report.md"; echo; ${summaryLine('"$RUNNER_TEMP/report.json"')}; } > "$RUNNER_TEMP/body.md"
${postComment}

      # The JSON summary names addresses and attributes, never values; the plan itself holds secrets and stays unsaved.
      - name: Keep the JSON summary
        if: steps.synth.outputs.stopped != 'true'
        uses: actions/upload-artifact@v4
        with:
          name: plan-report-\${{ matrix.stack }}
          path: \${{ runner.temp }}/report.json

      # Each finding as a code-scanning alert, on the line of the synthesized configuration that declares the resource.
      - name: Upload the policy findings
        if: steps.synth.outputs.stopped != 'true'
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: \${{ runner.temp }}/policy.sarif
          category: mgmt-policy-\${{ matrix.stack }}

      - name: Say so in the comment when the plan failed
        if: failure()
        run: |
          marker="<!-- mgmt-plan-report:$STACK -->"
          printf '%s\\n## Plan: %s\\n\\n:x: **The plan failed.** See the log: %s\\n' "$marker" "$STACK" "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID" > "$RUNNER_TEMP/body.md"
${postComment}

      # The synth stopped on the policy: there is no plan, and the comment shows what stopped it.
      - name: Post the findings the synth stopped on
        if: steps.synth.outputs.stopped == 'true'
        run: |
          marker="<!-- mgmt-plan-report:$STACK -->"
          npx mgmt plan-report --synth-policy "$RUNNER_TEMP/synth-policy.json" --title "Plan: $STACK" > "$RUNNER_TEMP/report.md"
          cat "$RUNNER_TEMP/report.md" >> "$GITHUB_STEP_SUMMARY"
          { echo "$marker"; cat "$RUNNER_TEMP/report.md"; } > "$RUNNER_TEMP/body.md"
${postComment}

      - name: Fail on the synth's policy findings
        if: steps.synth.outputs.stopped == 'true'
        run: |
          echo "The synth stopped on the account's rules at error severity: see the Policy section of the comment (mgmt-policy.json)."
          exit 2

      # Last, so that the comment above keeps the Policy section that says what to fix.
      - name: Fail on a policy violation
        if: steps.policy.outputs.status == '2'
        run: |
          echo "The plan violates the account's rules at error severity: see the Policy section of the comment (mgmt-policy.json)."
          exit 2
`;
}

/** With a pg backend, the stack's init before drift (which then runs none of its own), retrying the first init's race. */
function driftInit(c: ScaffoldContext): string {
  if (c.backend !== "pg") return "";
  return `          (
            cd "cdktf.out/stacks/$STACK"
${stackInit(c, "            ", '"$RUNNER_TEMP/init.log"')}          )
`;
}

export function driftWorkflow(c: ScaffoldContext): string {
  const engineFlag = c.engine === "terraform" ? " --engine terraform" : "";
  const lockWait =
    c.backend === "pg"
      ? `      # A deploy may hold the state's lock: wait for it rather than fail the check.
      TF_CLI_ARGS_plan: "${LOCK_TIMEOUT}"
`
      : "";
  return `# On a schedule: \`mgmt drift --unmanaged\` on every stack. While a stack has drift (objects changed or
# deleted outside of the code, or live objects no state manages) one issue per stack stays open and
# is updated with the latest report; when the drift is gone the issue is closed. The job fails only
# when the check itself errs.
#
# Settings it reads:
#   secrets.MGMT_DRIFT_TOKEN  a read-only token (account:read_only events:read_only): drift never changes anything
#   vars.MGMT_URL             the API root, e.g. https://api.example.test/v4
${c.backend === "pg" ? "#   secrets.PG_CONN_STR       the Postgres connection string of the shared state\n" : '# With local state (not committed) every live object shows as unmanaged: share state first (README.md, "Sharing state").\n'}name: drift

on:
  schedule:
    - cron: "17 6 * * *"
  workflow_dispatch:

permissions:
  contents: read
  issues: write

jobs:
  drift:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        stack: [${c.stack}]
    env:
${jobEnv(c, "MGMT_DRIFT_TOKEN")}${lockWait}    steps:
${setupSteps(c)}
      - name: Check for drift
        id: drift
        run: |
          code=0
          # drift never overwrites a module that already imports objects; this file is the job's own.
          rm -f "$RUNNER_TEMP/imports.ts"
${driftInit(c)}          npx mgmt drift --dir "cdktf.out/stacks/$STACK"${engineFlag}${driftBindingsFlag(c)} --unmanaged --import-out "$RUNNER_TEMP/imports.ts" --title "Drift: $STACK" > "$RUNNER_TEMP/drift.md" || code=$?
          # 0: nothing drifted and nothing unmanaged; 2: something did; anything else: the check failed.
          if [ "$code" -ne 0 ] && [ "$code" -ne 2 ]; then exit "$code"; fi
          echo "code=$code" >> "$GITHUB_OUTPUT"
          cat "$RUNNER_TEMP/drift.md" >> "$GITHUB_STEP_SUMMARY"

      - name: Open, update or close this stack's drift issue
        env:
          CODE: \${{ steps.drift.outputs.code }}
        run: |
          title="Drift: $STACK"
          gh label create drift --color d93f0b --description "Live objects differ from the code" 2>/dev/null || true
          number=$(gh issue list --state open --label drift --limit 200 --json number,title --jq ".[] | select(.title == \\"$title\\") | .number" | head -n 1)
          if [ "$CODE" = "2" ]; then
            {
              cat "$RUNNER_TEMP/drift.md"
              printf '\\n<details><summary>the unmanaged objects as code: save as imports.ts and call importUnmanaged(this) in the stack</summary>\\n\\n\`\`\`ts\\n'
              cat "$RUNNER_TEMP/imports.ts"
              printf '\`\`\`\\n\\n</details>\\n\\nLast checked by %s\\n' "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
            } > "$RUNNER_TEMP/body.md"
            if [ -n "$number" ]; then
              gh issue edit "$number" --body-file "$RUNNER_TEMP/body.md"
            else
              gh issue create --title "$title" --label drift --body-file "$RUNNER_TEMP/body.md"
            fi
          elif [ -n "$number" ]; then
            gh issue close "$number" --comment "No drift any more (checked by $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID)."
          fi
`;
}
