/**
 * What `mgmt init` was asked, kept in the repository (`.mgmt-init.json`, as Copier keeps its answers file) so
 * that `mgmt init --update` can write again what that version wrote: the base of its three-way merge. A
 * repository made before the file existed has its answers inferred from what init wrote, and is told so.
 * Pure: the files are given as text.
 */
import type { Backend, CdkName, CiSystem, EngineName } from "./options";

export const ANSWERS_FILE = ".mgmt-init.json";

export interface Answers {
  /** The @mgmt/provider version that wrote the repository. */
  readonly version: string;
  readonly ci: readonly CiSystem[];
  readonly backend: Backend;
  readonly engine: EngineName;
  readonly cdk: CdkName;
  /** Whether the packages are vendored in packages/ (true) or named on the registry. */
  readonly vendored: boolean;
  readonly projectId?: string;
}

export const answersJson = (a: Answers): string =>
  `${JSON.stringify({ _comment: "Written by mgmt init; read by mgmt init --update. Do not edit.", ...a }, null, 2)}\n`;

export function parseAnswers(text: string): Answers {
  const { _comment: _, ...a } = JSON.parse(text) as Answers & { _comment?: string };
  return a;
}

/** The repository's files init writes, as far as inference needs them; absent ones are undefined. */
export interface RepoFiles {
  readonly packageJson: string;
  readonly cdktfJson?: string;
  readonly mainTs?: string;
  readonly has: (path: string) => boolean;
}

/** A version from a dependency as init writes one: `file:packages/mgmt-provider-X.tgz`, or a range `~X` / `^X`. */
export function versionOf(spec: string): string | undefined {
  return /(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\.tgz)?$/.exec(spec)?.[1];
}

/** The answers of a repository without an answers file, from its package.json and the files init wrote. */
export function inferAnswers(repo: RepoFiles): { answers: Answers; notes: string[] } | { problem: string } {
  const manifest = JSON.parse(repo.packageJson) as { dependencies?: Record<string, string> };
  const deps = manifest.dependencies ?? {};
  const spec = deps["@mgmt/provider"];
  const version = spec === undefined ? undefined : versionOf(spec);
  if (version === undefined)
    return { problem: `package.json names no @mgmt/provider version (${spec ?? "no such dependency"}): is this a repository mgmt init wrote?` };
  const cdk: CdkName = deps["@mgmt/cdktn-provider-mgmt"] !== undefined ? "cdktn" : "cdktf";
  const engine: EngineName = deps.tofu !== undefined ? "tofu" : "terraform";
  const ci = (["github", "gitlab"] as const).filter((s) => repo.has(s === "github" ? ".github/workflows/plan.yml" : ".gitlab-ci.yml"));
  const backend: Backend = repo.mainTs?.includes("PgBackend") ? "pg" : "local";
  const projectId = repo.cdktfJson === undefined ? undefined : (JSON.parse(repo.cdktfJson) as { projectId?: string }).projectId;
  const answers: Answers = { version, ci, backend, engine, cdk, vendored: spec.startsWith("file:"), ...(projectId === undefined ? {} : { projectId }) };
  return {
    answers,
    notes: [
      `no ${ANSWERS_FILE}: inferred from package.json and the files here that this repository was made by mgmt init ${version} with` +
        ` --cdk ${cdk} --engine ${engine} --backend ${backend} --ci ${ci.length ? ci.join(",") : "none"}${answers.vendored ? " (packages vendored)" : ""}`,
    ],
  };
}
