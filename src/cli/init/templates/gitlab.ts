/**
 * .gitlab-ci.yml: the same jobs as the GitHub workflows (apply and rotate in ./gitlab-apply.ts). `plan` runs in merge-request pipelines
 * and keeps one note per stack up to date; `drift` runs in scheduled pipelines and keeps one issue
 * per stack open while drift lasts. The API calls are curl, their answers read with node.
 */
import { ciNodeMajor, ciSynth, driftBindingsFlag } from "./cdk";
import { LOCK_TIMEOUT, engineCommand, type ScaffoldContext } from "./context";
import { gitlabApplyJobs } from "./gitlab-apply";
import { planReportLog, printPlanDiagnostics } from "./plan-log";
import { summaryLine } from "./review-carry";
import { stackInit } from "./state-init";
import { TERRAFORM_VERSION } from "./versions";

/** Adds this stack's merge-request note from body.md, or edits the one an earlier run added (found by its marker). */
const postNote = `      api="$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes"
      id=$(curl -fsS --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" "$api?per_page=100&sort=desc" | node -e 'const m=process.argv[1];let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const n=JSON.parse(s).find(n=>n.body.startsWith(m));if(n)console.log(n.id)})' "$marker")
      body=$(node -e 'process.stdout.write(JSON.stringify({body:require("fs").readFileSync("body.md","utf8")}))')
      if [ -n "$id" ]; then
        curl -fsS -X PUT --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$body" "$api/$id" > /dev/null
      else
        curl -fsS -X POST --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$body" "$api" > /dev/null
      fi`;

/**
 * Terraform for the --engine terraform pipeline: the node image has none, so the job installs the
 * version this project tests with from HashiCorp's releases, as hashicorp/setup-terraform does on
 * GitHub (an image with Terraform would lack the Node the repository's tools need).
 */
const installTerraform = `    - |
      if ! command -v terraform > /dev/null; then
        curl -fsSLo /tmp/terraform.zip "https://releases.hashicorp.com/terraform/\${TERRAFORM_VERSION}/terraform_\${TERRAFORM_VERSION}_linux_amd64.zip"
        unzip -oq /tmp/terraform.zip terraform -d /usr/local/bin
      fi
`;

export function gitlabCi(c: ScaffoldContext): string {
  const engine = engineCommand(c);
  const engineFlag = c.engine === "terraform" ? " --engine terraform" : "";
  const pg = c.backend === "pg";
  return `# GitLab CI: \`plan\` in merge-request pipelines keeps one note per stack up to date; \`drift\` in
# scheduled pipelines (and pipelines run by hand: Build > Pipelines > Run pipeline) keeps one issue per stack
# open while drift lasts, with a note when it closes one. Both fail only when something errs, and a failed plan
# says so in the note.${pg ? " `apply` (a push to the default branch: a merge) applies the saved plan only when it is\n# what the merge request's note showed; `rotate` (scheduled pipelines) applies only token rotations due." : ""}
#
# CI/CD variables it reads (Settings > CI/CD > Variables). GitLab gives a protected variable only to pipelines of
# protected refs, and a merge request's pipeline runs on its source branch, which is not protected: so what the
# plan job needs is masked but NOT protected, and only what changes the account is protected.
#   MGMT_URL          the API root, e.g. https://api.example.test/v4                            neither
#   MGMT_TOKEN        a token for plans: account:read_only is enough                            masked, not protected
#   GITLAB_API_TOKEN  a project access token (role Reporter, scope api) for notes and issues    masked, not protected
${pg ? "#   PG_CONN_STR       the Postgres connection string of the shared state (the engine reads it)  masked, not protected\n#   MGMT_APPLY_TOKEN  a token that can change what the stacks manage, for apply and rotate      masked AND protected\n" : ""}#   MGMT_DRIFT_TOKEN  a read-only token (account:read_only events:read_only) for drift, with an expiry masked AND protected
# A variable that is not protected reaches every branch's pipeline: give those only what a plan needs (read-only).
# Drift${pg ? ", apply and rotate run" : " runs"} on the default branch (protected), in scheduled pipelines or run by hand.
${pg ? "# The scheduled rotation: a pipeline schedule (Build > Pipeline schedules), daily, on the default branch.\n" : '# State is local and not committed: CI plans start from no state. Share it first (README.md, "Sharing state").\n'}${c.engine === "terraform" ? "# Terraform is installed from releases.hashicorp.com when the image has none (TERRAFORM_VERSION).\n" : ""}# Set STACK per pipeline or copy the jobs per stack.

variables:
  CHECKPOINT_DISABLE: "1"
  TF_IN_AUTOMATION: "1"
  TF_INPUT: "0"
  STACK: ${c.stack}
${c.engine === "terraform" ? `  TERRAFORM_VERSION: "${TERRAFORM_VERSION}"\n` : ""}
default:
  image: node:${ciNodeMajor(c)}-bookworm
  # node_modules keyed on the lock file: the provider package's native addon is built once per lock file.
  cache:
    key:
      files: [package-lock.json]
    paths: [node_modules/]
  before_script:
${c.engine === "terraform" ? installTerraform : ""}    - test -d node_modules/.bin || npm ci
    - npx mgmt install-provider
    # The plan job's type check, with the compiler's messages: the scripts' synth strips main.ts's types unchecked.
    - if [ "$CI_JOB_NAME" = plan ]; then npm run typecheck; fi
    # The MgmtPolicy Aspect writes what it finds to synth-policy.json: a synth it stops still reaches review (the
    # plan job's note shows the findings, then fails); any other failure of the synth fails the job here.
    - |
      export MGMT_POLICY_SYNTH_JSON="$CI_PROJECT_DIR/synth-policy.json"
      rm -f "$MGMT_POLICY_SYNTH_JSON" synth-stopped
      synth=0
      ${ciSynth(c)} || synth=$?
      if [ "$synth" -ne 0 ] && [ -s "$MGMT_POLICY_SYNTH_JSON" ] && grep -q '"passed": false' "$MGMT_POLICY_SYNTH_JSON"; then
        echo "The synth stopped on the account's rules (each finding is one line above)."
        touch synth-stopped
      elif [ "$synth" -ne 0 ]; then
        exit "$synth"
      fi

plan:
  stage: test
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    # The synth stopped on the policy: no plan; the note shows what stopped it, and the job fails (after_script leaves the note).
    - |
      if [ -e synth-stopped ]; then
        marker="<!-- mgmt-plan-report:$STACK -->"
        npx mgmt plan-report --synth-policy synth-policy.json --title "Plan: $STACK" > report.md
        { echo "$marker"; cat report.md; } > body.md
${postNote.replace(/\n/g, "\n  ").replace(/^/, "  ")}
        touch policy-violated
        echo "The synth stopped on the account's rules at error severity: see the Policy section of the note (mgmt-policy.json)."
        exit 2
      fi
    # -lock=false: a merge request's plan only reads the state; it must neither wait for nor hold up a deploy.
    # mgmt warm: plan and show attach to one provider process rather than start their own, several times each.
    # plan -json: the engine's machine-readable log (the provider's warnings, for the report); show prints the plan here.
    - |
      cd "cdktf.out/stacks/$STACK"
${stackInit(c, "      ", '"$CI_PROJECT_DIR/init.log"')}      status=0
      npx mgmt warm -- sh -c '${engine} plan -json -input=false -lock=false -out=plan.tfplan > "$CI_PROJECT_DIR/plan.log.jsonl" && ${engine} show -no-color plan.tfplan && ${engine} show -json plan.tfplan > "$CI_PROJECT_DIR/plan.json"' || status=$?
      rm -f plan.tfplan
      cd "$CI_PROJECT_DIR"
      if [ "$status" -ne 0 ]; then
        ${printPlanDiagnostics("plan.log.jsonl")}
        exit "$status"
      fi
    # The account's rules (mgmt-policy.json) on the plan: exit 2 (a rule violated at error severity) fails the job
    # at the end, after the note says which; any other failure (an unreadable plan or mgmt-policy.json) fails it here.
    - |
      rm -f policy-violated
      policy=0
      npx mgmt policy check --plan plan.json --config mgmt-policy.json --format json > policy.json || policy=$?
      if [ "$policy" -ne 0 ] && [ "$policy" -ne 2 ]; then exit "$policy"; fi
    - |
      npx mgmt plan-report --plan plan.json${planReportLog("plan.log.jsonl")} --policy policy.json --title "Plan: $STACK" > report.md
      npx mgmt plan-report --plan plan.json${planReportLog("plan.log.jsonl")} --policy policy.json --format json > report.json
      rm plan.json
    - |
      marker="<!-- mgmt-plan-report:$STACK -->"
      # The hidden last line: the actions per address this note shows, which the apply job compares a merge's plan with.
      { echo "$marker"; cat report.md; echo; ${summaryLine("report.json")}; } > body.md
${postNote}
    # Last, so that the note above keeps the Policy section that says what to fix (and after_script leaves it).
    - |
      if [ "$policy" -eq 2 ]; then
        touch policy-violated
        echo "The plan violates the account's rules at error severity: see the Policy section of the note (mgmt-policy.json)."
        exit 2
      fi
  # As GitHub's job does: a plan that failed (synth, init, plan, report) says so in this stack's note.
  after_script:
    - |
      if [ "$CI_JOB_STATUS" = "failed" ] && [ ! -e policy-violated ]; then
        marker="<!-- mgmt-plan-report:$STACK -->"
        printf '%s\\n## Plan: %s\\n\\n:x: **The plan failed.** See the log: %s\\n' "$marker" "$STACK" "$CI_JOB_URL" > body.md
  ${postNote.replace(/\n/g, "\n  ")}
      fi
  # The JSON summary names addresses and attributes, never values; the plan itself holds secrets and is removed.
  artifacts:
    when: always
    paths: [report.md, report.json, policy.json]

drift:
  stage: test
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
    # Run by hand: Build > Pipelines > Run pipeline (as GitHub's workflow_dispatch).
    - if: $CI_PIPELINE_SOURCE == "web"
${c.backend === "pg" ? `  variables:\n    # A deploy may hold the state's lock: wait for it rather than fail the check.\n    TF_CLI_ARGS_plan: "${LOCK_TIMEOUT}"\n` : ""}  script:
    - |
      if [ -e synth-stopped ]; then echo "The synth stopped on the account's rules: drift needs a stack that synthesizes."; exit 1; fi
      # Drift acts with its own read-only token, never the plan job's (a project variable would override a job's).
      export MGMT_TOKEN="\${MGMT_DRIFT_TOKEN:?set MGMT_DRIFT_TOKEN, a read-only token, as a masked CI/CD variable}"
${c.backend === "pg" ? `      (\n        cd "cdktf.out/stacks/$STACK"\n${stackInit(c, "        ", '"$CI_PROJECT_DIR/init.log"')}      )\n` : ""}      code=0
      # Not imports.ts, which the stack may keep; and drift never overwrites a module that already imports objects.
      rm -f unmanaged-imports.ts
      npx mgmt drift --dir "cdktf.out/stacks/$STACK"${engineFlag}${driftBindingsFlag(c)} --unmanaged --import-out unmanaged-imports.ts --title "Drift: $STACK" > drift.md || code=$?
      # 0: nothing drifted and nothing unmanaged; 2: something did; anything else: the check failed.
      if [ "$code" -ne 0 ] && [ "$code" -ne 2 ]; then exit "$code"; fi
      api="$CI_API_V4_URL/projects/$CI_PROJECT_ID/issues"
      title="Drift: $STACK"
      number=$(curl -fsS --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" "$api?state=opened&labels=drift&per_page=100" | node -e 'const t=process.argv[1];let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{const i=JSON.parse(s).find(i=>i.title===t);if(i)console.log(i.iid)})' "$title")
      if [ "$code" = "2" ]; then
        { cat drift.md; printf '\\nThe unmanaged objects as code: save as imports.ts and call importUnmanaged(this) in the stack.\\n\\n\`\`\`ts\\n'; cat unmanaged-imports.ts; printf '\`\`\`\\n\\nLast checked by %s\\n' "$CI_PIPELINE_URL"; } > body.md
        body=$(node -e 'process.stdout.write(JSON.stringify({title:process.argv[1],labels:"drift",description:require("fs").readFileSync("body.md","utf8")}))' "$title")
        if [ -n "$number" ]; then
          curl -fsS -X PUT --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$body" "$api/$number" > /dev/null
        else
          curl -fsS -X POST --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$body" "$api" > /dev/null
        fi
      elif [ -n "$number" ]; then
        # As GitHub's job does: a note says why the issue closed, then it closes.
        note=$(node -e 'process.stdout.write(JSON.stringify({body:"No drift any more (checked by "+process.argv[1]+")."}))' "$CI_PIPELINE_URL")
        curl -fsS -X POST --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --header "Content-Type: application/json" --data "$note" "$api/$number/notes" > /dev/null
        curl -fsS -X PUT --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" --data "state_event=close" "$api/$number" > /dev/null
      fi
  artifacts:
    when: always
    paths: [drift.md, unmanaged-imports.ts]
${gitlabApplyJobs(c)}`;
}
