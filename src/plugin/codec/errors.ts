import type { AttributePath, PathStep } from "../../provider/framework/diagnostics";

/**
 * A value that does not fit its type, or bytes that are not a value of the type. The path
 * is kept in the same shape diagnostics use, so the plugin layer can point Terraform at
 * the offending attribute instead of only printing the message.
 */
export class CodecError extends Error {
  readonly path: AttributePath;
  readonly problem: string;

  constructor(problem: string, path: AttributePath = []) {
    super(`${formatPath(path)}: ${problem}`);
    this.name = "CodecError";
    this.path = path;
    this.problem = problem;
  }
}

/** Terraform's own notation (`.tags[2]`, `.labels["env"]`), so messages read like its errors. */
export function formatPath(path: AttributePath): string {
  if (path.length === 0) return "(root)";
  return path.map(formatStep).join("");
}

function formatStep(step: PathStep): string {
  if ("attribute" in step) return `.${step.attribute}`;
  if ("key" in step) return `[${JSON.stringify(step.key)}]`;
  return `[${step.index}]`;
}

/**
 * Where the codec currently is, as a parent-linked chain: walking a large value allocates one
 * small node per element, and the array form is only built when an error needs it.
 */
export type Loc = { readonly parent: Loc; readonly step: PathStep } | null;

export const atAttr = (parent: Loc, attribute: string): Loc => ({ parent, step: { attribute } });
export const atKey = (parent: Loc, key: string): Loc => ({ parent, step: { key } });
export const atIndex = (parent: Loc, index: number): Loc => ({ parent, step: { index } });

export function codecError(loc: Loc, problem: string): CodecError {
  const steps: PathStep[] = [];
  for (let l = loc; l !== null; l = l.parent) steps.push(l.step);
  return new CodecError(problem, steps.reverse());
}
