/**
 * `mgmt drift`: a refresh-only plan in a stack folder, reported; with --unmanaged, the live objects no
 * state holds, and with --import-out, code that adopts them: HCL import blocks, or a cdktf module for
 * the stack's source. The engine runs and the API calls are here; the report and the code are made
 * by src/report.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { MgmtClient } from "../client";
import { PROVIDER_SOURCE } from "../provider/identity";
import { childAccountClient } from "../provider/proxy-session";
import { AUTOMATION_ENV, availableEngines, runEngine, type Engine } from "../harness/engine";
import { driftFound, driftLineCount, driftReportJson, renderDriftMarkdown, type DriftReport } from "../report/drift-report";
import { parsePlanJson, priorStateResources, PlanFormatError, type Plan } from "../report/plan-model";
import { driftEntries, type ResourceEntry } from "../report/summary";
import { DEFAULT_MAX_CHARS, fit } from "../report/truncate";
import { REPORT_OPTIONS, parseCommand, reportSettings } from "./args";
import { cdktfImportModule } from "../report/import-cdktf";
import { importFormat, type ImportFormat } from "../report/import-format";
import { findUnmanaged, importBlocks, type LiveObject, type UnmanagedObject, type UnmanagedResult } from "../report/unmanaged";
import { importedObjects, UNMANAGED_TYPES, type ImportedObjects } from "./unmanaged-types";
import { ciToken, driftSubjects, lookUpEvents, recordedValues } from "./drift-events";
import type { EventLookup } from "../report/drift-events";

export const DEFAULT_BINDINGS = "@mgmt/cdktf-provider-mgmt";

export const DRIFT_USAGE = `usage: mgmt drift [--dir DIR] [--engine tofu|terraform] [--format markdown|json]
                  [--unmanaged] [--import-out FILE] [--import-format cdktf|hcl]
                  [--bindings MODULE] [--title TEXT] [--max-chars N]

Runs a refresh-only plan ('plan -refresh-only', then 'show -json') in DIR and reports
each managed object whose live state differs from the state (attributes before -> after,
sensitive values masked) and each one deleted outside of Terraform. DIR is an HCL or JSON
configuration, such as a cdktf stack folder (cdktf.out/stacks/NAME); 'init' runs first
when DIR has no .terraform folder. The engine reads the provider's settings as usual
(MGMT_URL, MGMT_TOKEN).

With MGMT_URL and MGMT_TOKEN set, each object changed, deleted or created outside of
Terraform is named with the account event that explains it (who, when, which action,
from GET /account/events: the token needs events:read_only), or said to have none; and
the token the run acts with is called out when it is inside the renewal window of the
mgmt_token that manages it in this state, or expires within 14 days.

options:
  --dir DIR          the configuration folder (default: the current folder)
  --engine NAME      tofu (default: the OpenTofu this project installs, else tofu on
                     PATH) or terraform (on PATH)
  --format FORMAT    markdown (default, for an issue body) or json (names and ids only)
  --unmanaged        also list the live objects of every resource type the provider
                     manages that no state holds (needs MGMT_URL and MGMT_TOKEN); the
                     bootstrap token of 'mgmt serve' and the token this run acts with are
                     listed as such and not counted. Unmanaged tokens come first, called
                     out as live credentials with the call that revokes each. In a cdktf
                     stack (DIR has cdk.tf.json, or a cdktf.json is in DIR or up to three
                     folders above) the objects are named as the cdktf module of
                     --import-out FILE.ts names them (construct id and class)
  --import-out FILE  with --unmanaged: write code that adopts those objects to FILE, in
                     the format its extension names (or --import-format):
                       .ts  a cdktf module exporting importUnmanaged(scope: Construct):
                            each object declared with the bindings' construct, configured
                            from its live values, and .importFrom(id). Keep it in the
                            stack's source and call importUnmanaged(this) in the stack;
                            the next plan only imports. Secrets the API does not show
                            (a token's value, an OAuth client's secret) are left out. A
                            module that already imports objects is never replaced.
                       .tf  import {} blocks; then 'plan -generate-config-out=generated.tf'
                            writes their configuration
  --import-format F  cdktf or hcl, whatever FILE is named
  --bindings MODULE  where the cdktf module imports the constructs from (default
                     ${DEFAULT_BINDINGS}; a path such as
                     ../generated/providers/mgmt for bindings generated into the project)
  --title TEXT       the report's heading (default "Drift report")
  --max-chars N      keep the markdown under N characters (default ${DEFAULT_MAX_CHARS})
  -h, --help         show this help

exit codes: 0 no drift and nothing unmanaged, 2 drift or unmanaged objects found,
1 error (the engine failed, the API could not be read, bad arguments).
`;

/** The provider's local name, the prefix of its resource types. */
const PROVIDER_NAME = PROVIDER_SOURCE.slice(PROVIDER_SOURCE.lastIndexOf("/") + 1);

class DriftError extends Error {}

function chooseEngine(name: string): Engine {
  if (name !== "tofu" && name !== "terraform") throw new DriftError(`--engine must be tofu or terraform, not '${name}'`);
  let found: Engine | undefined;
  try {
    found = availableEngines().find((e) => e.name === name && existsSync(e.binary));
  } catch {
    // Run from outside this repository: there is no project copy to prefer.
  }
  // Without the project's own copy, the engine on PATH (spawn resolves a bare name through PATH).
  return found ?? { name, binary: name };
}

async function refreshOnlyPlan(engine: Engine, dir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...AUTOMATION_ENV };
  const run = async (args: string[], what: string) => {
    const r = await runEngine(engine, args, dir, env).catch((err: unknown) => {
      throw new DriftError(`cannot run ${engine.binary}: ${err instanceof Error ? err.message : String(err)}`);
    });
    return { ...r, fail: () => new DriftError(`${engine.name} ${what} failed (exit ${r.code}):\n${r.stderr || r.stdout}`) };
  };
  let initFailure: DriftError | undefined;
  if (!existsSync(join(dir, ".terraform"))) {
    const init = await run(["init", "-input=false", "-no-color"], "init");
    // With dev_overrides the engine needs no init and init itself fails (it still asks a registry),
    // so the plan gets its chance; a plan that then fails shows both messages.
    if (init.code !== 0) initFailure = init.fail();
  }
  const work = mkdtempSync(join(tmpdir(), "mgmt-drift-"));
  try {
    const planFile = join(work, "refresh.tfplan");
    const plan = await run(["plan", "-refresh-only", "-detailed-exitcode", "-input=false", "-no-color", `-out=${planFile}`], "plan -refresh-only");
    if (plan.code !== 0 && plan.code !== 2) throw initFailure ? new DriftError(`${initFailure.message}\n${plan.fail().message}`) : plan.fail();
    const show = await run(["show", "-json", "-no-color", planFile], "show -json");
    if (show.code !== 0) throw show.fail();
    return show.stdout;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Whether DIR is a cdktf stack: the folder cdktf synthesizes (`cdk.tf.json`), or a folder in a cdktf
 * project (`cdktf.json` in it or up to three folders above, as from `cdktf.out/stacks/NAME`). The
 * report then suggests the TypeScript `--import-out FILE.ts` writes, not HCL.
 */
export function isCdktfStack(dir: string): boolean {
  if (existsSync(join(dir, "cdk.tf.json"))) return true;
  let at = dir;
  for (let up = 0; up <= 3; up++) {
    if (existsSync(join(at, "cdktf.json"))) return true;
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return false;
}

/** Whether FILE is a module that already adopts objects (`.importFrom(...)` outside comments). */
function declaresImports(file: string): boolean {
  if (!existsSync(file)) return false;
  return readFileSync(file, "utf8")
    .split("\n")
    .some((line) => !line.trimStart().startsWith("//") && line.includes(".importFrom("));
}

async function readImported(objects: readonly UnmanagedObject[], env: NodeJS.ProcessEnv): Promise<ImportedObjects> {
  try {
    return await importedObjects(objects, env);
  } catch (err) {
    throw new DriftError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * The child account the stack's default provider acts in (`child_account { euuid }`, else
 * MGMT_CHILD_ACCOUNT_EUUID, as the provider itself decides), from `show -json`'s configuration:
 * the unmanaged objects are that account's, not the token's own.
 */
export function stackChildAccount(showJson: string, env: NodeJS.ProcessEnv): string | undefined {
  type Expressions = { child_account?: { euuid?: { constant_value?: unknown } }[] };
  const config = (JSON.parse(showJson) as { configuration?: { provider_config?: Record<string, { expressions?: Expressions }> } }).configuration;
  const block = config?.provider_config?.mgmt?.expressions?.child_account?.[0];
  if (block === undefined) return env.MGMT_CHILD_ACCOUNT_EUUID || undefined;
  const euuid = block.euuid?.constant_value;
  if (typeof euuid === "string" && euuid !== "") return euuid;
  throw new DriftError(
    "the stack's provider acts in a child account whose euuid is not a literal in the configuration; --unmanaged cannot tell which account to list: make child_account.euuid a literal, or leave the block out and set MGMT_CHILD_ACCOUNT_EUUID",
  );
}

/** A client acting as the stack's provider does: in its child account through a proxy token, or as MGMT_TOKEN itself. */
async function actingClient(url: string, token: string, euuid: string | undefined): Promise<ApiSession> {
  const parent = new MgmtClient({ url, token });
  if (euuid === undefined) return { client: parent, parent, actingToken: token, close: () => parent.close() };
  let child;
  try {
    child = await childAccountClient({ parent, euuid, clientWith: (credentials) => new MgmtClient({ url, token: credentials }), log: () => {} });
  } catch (err) {
    throw new DriftError(`cannot act in child account ${euuid} to list its objects: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    client: child.client,
    parent,
    actingToken: await child.session.current(),
    // Revokes the proxy token, then closes both clients (the parent's too).
    close: child.close,
  };
}

/** The API as the stack's provider acts with it (`client`, in its child account if any) and as MGMT_TOKEN itself (`parent`). */
interface ApiSession {
  readonly client: MgmtClient;
  readonly parent: MgmtClient;
  readonly actingToken: string;
  close(): Promise<void>;
}

async function listUnmanaged(state: ReturnType<typeof priorStateResources>, session: ApiSession): Promise<UnmanagedResult> {
  const { client, actingToken } = session;
  const live = new Map<string, LiveObject[]>();
  for (const t of UNMANAGED_TYPES) {
    try {
      live.set(t.type, await t.list({ client, actingToken }));
    } catch (err) {
      throw new DriftError(`cannot list ${t.title} (${t.type}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return findUnmanaged(
    UNMANAGED_TYPES,
    state.map((r) => ({ address: r.address, type: r.type, values: r.values ?? {} })),
    live,
  );
}

interface DriftValues {
  readonly dir: string;
  readonly engine: string;
  readonly unmanaged: boolean;
  readonly "import-out"?: string;
  readonly "import-format"?: string;
  readonly bindings?: string;
  readonly format: string;
  readonly title?: string;
  readonly "max-chars": string;
}

/** What the options ask for, every one checked before the engine runs. */
interface DriftRequest {
  readonly settings: { readonly format: "markdown" | "json"; readonly maxChars: number };
  readonly dir: string;
  readonly engine: Engine;
  readonly unmanaged: boolean;
  /** --import-out and the format its code is written in. */
  readonly importOut?: { readonly file: string; readonly format: ImportFormat };
  readonly bindings?: string;
  readonly title?: string;
}

export async function runDrift(args: string[]): Promise<number> {
  const parsed = parseCommand(
    "drift",
    DRIFT_USAGE,
    args,
    {
      dir: { type: "string", default: "." },
      engine: { type: "string", default: "tofu" },
      unmanaged: { type: "boolean", default: false },
      "import-out": { type: "string" },
      "import-format": { type: "string" },
      bindings: { type: "string" },
      ...REPORT_OPTIONS,
    },
    { usageExit: 1 },
  );
  if ("exit" in parsed) return parsed.exit;
  try {
    const request = driftRequest(parsed.values);
    const showJson = await refreshOnlyPlan(request.engine, request.dir);
    const plan = parsePlanJson(showJson);
    const drift = driftEntries(plan, "all");
    const opened = await openSession(request, showJson, drift.length > 0);
    const { session } = opened;
    try {
      const report = await driftReport(request, plan, drift, opened);
      if (request.settings.format === "json") process.stdout.write(`${JSON.stringify(driftReportJson(report), null, 2)}\n`);
      else {
        const detailed = report.drift.length;
        process.stdout.write(
          fit((budget, note) => renderDriftMarkdown(report, budget, request.title, note), detailed, driftLineCount(report), request.settings.maxChars).text,
        );
      }
      return driftFound(report) ? 2 : 0;
    } finally {
      await session?.close();
    }
  } catch (err) {
    if (err instanceof DriftError || err instanceof PlanFormatError) {
      process.stderr.write(`mgmt drift: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** The options checked against each other and the folder; a DriftError says what is wrong. */
function driftRequest(values: DriftValues): DriftRequest {
  const settings = reportSettings(values);
  if ("problem" in settings) throw new DriftError(settings.problem);
  const importOut = values["import-out"];
  if (importOut !== undefined && !values.unmanaged) throw new DriftError("--import-out needs --unmanaged");
  if (importOut === undefined && values["import-format"] !== undefined) throw new DriftError("--import-format needs --import-out");
  const chosen = importOut === undefined ? undefined : importFormat(importOut, values["import-format"]);
  if (chosen && "problem" in chosen) throw new DriftError(chosen.problem);
  if (values.bindings !== undefined && chosen?.format !== "cdktf") throw new DriftError("--bindings applies to cdktf code (--import-out FILE.ts)");
  if (values.bindings === "") throw new DriftError("--bindings needs a module name");
  if (chosen?.format === "cdktf" && declaresImports(resolve(importOut!))) {
    // Once applied, that module's declarations are what keeps its objects in the stack; this run
    // lists only what is still unmanaged, so overwriting it would have the next plan destroy them.
    throw new DriftError(
      `${importOut} already declares objects to import: once applied, those declarations keep them in the stack, and replacing them would have the next plan destroy them. Write to another file, or delete this one if it was never applied.`,
    );
  }
  const dir = resolve(values.dir);
  if (!existsSync(dir)) throw new DriftError(`no such folder: ${dir}`);
  return {
    settings,
    dir,
    engine: chooseEngine(values.engine),
    unmanaged: values.unmanaged,
    ...(importOut !== undefined && chosen ? { importOut: { file: importOut, format: chosen.format } } : {}),
    ...(values.bindings !== undefined ? { bindings: values.bindings } : {}),
    ...(values.title !== undefined ? { title: values.title } : {}),
  };
}

/** The API session, when MGMT_URL and MGMT_TOKEN are set; without --unmanaged, why there is none is said in the report instead. */
interface OpenedSession {
  readonly session?: ApiSession;
  readonly euuid?: string;
  readonly childProblem?: string;
}

async function openSession(request: DriftRequest, showJson: string, drifted: boolean): Promise<OpenedSession> {
  const url = process.env.MGMT_URL;
  const token = process.env.MGMT_TOKEN;
  if (request.unmanaged && (!url || !token)) throw new DriftError("--unmanaged reads the API itself and needs MGMT_URL and MGMT_TOKEN");
  if (!url || !token) return {};
  // Without --unmanaged the API is asked only who made the changes: a child account it cannot name leaves that unknown, not the run failed.
  let euuid: string | undefined;
  try {
    euuid = stackChildAccount(showJson, process.env);
  } catch (err) {
    if (request.unmanaged) throw err;
    return { childProblem: err instanceof Error ? err.message : String(err) };
  }
  try {
    // The child account is acted in (a proxy token made and revoked) only when something there is asked about.
    const session = await actingClient(url, token, request.unmanaged || drifted ? euuid : undefined);
    return { session, ...(euuid !== undefined ? { euuid } : {}) };
  } catch (err) {
    if (request.unmanaged) throw err;
    return { ...(euuid !== undefined ? { euuid } : {}), childProblem: err instanceof Error ? err.message : String(err) };
  }
}

/** The report: the drift, the unmanaged objects (their import code written first), the events behind them and the CI token's standing. */
async function driftReport(
  request: DriftRequest,
  plan: Plan,
  drift: readonly ResourceEntry[],
  { session, euuid, childProblem }: OpenedSession,
): Promise<DriftReport> {
  const state = priorStateResources(plan);
  let unmanaged = request.unmanaged && session ? await listUnmanaged(state, session) : undefined;
  // The names the stack already has: construct ids in the module and in the report avoid them alike.
  const taken = state.map((r) => r.address.slice(r.address.lastIndexOf(".") + 1));
  if (request.importOut && unmanaged) unmanaged = await writeImports(request.importOut, unmanaged, { bindings: request.bindings, euuid, taken });
  const cdktf = request.importOut?.format === "cdktf" || (request.importOut === undefined && isCdktfStack(request.dir));
  const now = new Date();
  const subjects = driftSubjects(drift, recordedValues(plan), unmanaged?.unmanaged ?? []);
  const events: EventLookup | undefined = session
    ? await lookUpEvents(session.client, subjects, now)
    : subjects.length === 0
      ? undefined
      : { unavailable: childProblem ?? "MGMT_URL and MGMT_TOKEN are not set, so the account's events were not read" };
  const token = process.env.MGMT_TOKEN;
  const ciTokenStatus = session && token ? await ciToken(session.parent, token, state, now) : undefined;
  return {
    drift,
    ...(unmanaged ? { unmanaged } : {}),
    ...(cdktf ? { cdktf: { provider: PROVIDER_NAME, taken } } : {}),
    ...(events ? { events } : {}),
    ...(ciTokenStatus ? { ciToken: ciTokenStatus } : {}),
  };
}

/** Writes the code that adopts the unmanaged objects; the answer leaves out those deleted before the provider read them. */
async function writeImports(
  out: NonNullable<DriftRequest["importOut"]>,
  unmanaged: UnmanagedResult,
  names: { readonly bindings: string | undefined; readonly euuid: string | undefined; readonly taken: readonly string[] },
): Promise<UnmanagedResult> {
  let text: string;
  let kept = unmanaged;
  if (out.format === "hcl") text = importBlocks(unmanaged.unmanaged);
  else {
    // The provider that reads them acts where they were listed.
    const { subjects, gone } = await readImported(unmanaged.unmanaged, names.euuid ? { ...process.env, MGMT_CHILD_ACCOUNT_EUUID: names.euuid } : process.env);
    // Deleted between the listing and the read: there is nothing left to adopt or to report.
    for (const o of gone)
      process.stderr.write(`mgmt drift: ${o.type} ${JSON.stringify(o.importId)} (label ${JSON.stringify(o.label)}) was deleted while drift ran; left out\n`);
    if (gone.length > 0) kept = { ...unmanaged, unmanaged: unmanaged.unmanaged.filter((o) => !gone.includes(o)) };
    text = cdktfImportModule(subjects, { bindings: names.bindings ?? DEFAULT_BINDINGS, provider: PROVIDER_NAME, taken: names.taken });
  }
  writeFileSync(resolve(out.file), text);
  return kept;
}
