/**
 * What `mgmt init` is asked for, checked without touching the disk: each flag's value is one of
 * a few words, and a wrong one is an error naming the flag and the words it takes.
 */
export const CI_SYSTEMS = ["github", "gitlab"] as const;
export type CiSystem = (typeof CI_SYSTEMS)[number];
export type Backend = "local" | "pg";
export type EngineName = "tofu" | "terraform";
/** The construct library main.ts is written against: cdktf, or CDK Terrain (cdktn), its continuation. */
export type CdkName = "cdktf" | "cdktn";

export interface ScaffoldOptions {
  readonly ci: readonly CiSystem[];
  readonly backend: Backend;
  readonly engine: EngineName;
  /** Absent means cdktf, the default (templates read it through templates/cdk.ts). */
  readonly cdk?: CdkName;
}

export interface RawInitFlags {
  readonly ci?: string;
  readonly backend?: string;
  readonly engine?: string;
  readonly cdk?: string;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T | { problem: string } {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  return { problem: `--${flag} must be ${allowed.join(" or ")}, not '${value}'` };
}

/** `--ci github,gitlab` (the default), one of them, or `none`. */
function ciSystems(value: string | undefined): readonly CiSystem[] | { problem: string } {
  if (value === undefined) return CI_SYSTEMS;
  if (value === "none") return [];
  const names = value.split(",").map((s) => s.trim());
  const wrong = names.find((n) => !(CI_SYSTEMS as readonly string[]).includes(n));
  if (wrong !== undefined) return { problem: `--ci must be a comma-separated list of github and gitlab, or none, not '${value}'` };
  return CI_SYSTEMS.filter((s) => names.includes(s));
}

export function scaffoldOptions(flags: RawInitFlags): Required<ScaffoldOptions> | { problem: string } {
  const ci = ciSystems(flags.ci);
  if ("problem" in ci) return ci;
  const backend = oneOf<Backend>("backend", flags.backend, ["local", "pg"], "local");
  if (typeof backend !== "string") return backend;
  const engine = oneOf<EngineName>("engine", flags.engine, ["tofu", "terraform"], "tofu");
  if (typeof engine !== "string") return engine;
  const cdk = oneOf<CdkName>("cdk", flags.cdk, ["cdktf", "cdktn"], "cdktf");
  if (typeof cdk !== "string") return cdk;
  return { ci, backend, engine, cdk };
}
