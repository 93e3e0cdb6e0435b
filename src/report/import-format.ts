/**
 * Which kind of file `--import-out` writes: HCL import blocks for a configuration kept as HCL, or
 * a TypeScript module for a cdktf stack (whose synthesized folder the next synth replaces).
 */
export type ImportFormat = "cdktf" | "hcl";

export const IMPORT_FORMATS: readonly ImportFormat[] = ["cdktf", "hcl"];

/** The format an explicit `--import-format` names, else the one the file's extension implies; or the problem. */
export function importFormat(file: string, flag: string | undefined): { format: ImportFormat } | { problem: string } {
  if (flag !== undefined) {
    if ((IMPORT_FORMATS as readonly string[]).includes(flag)) return { format: flag as ImportFormat };
    return { problem: `--import-format must be cdktf or hcl, not '${flag}'` };
  }
  if (/\.(?:ts|mts|cts)$/i.test(file)) return { format: "cdktf" };
  if (/\.tf$/i.test(file)) return { format: "hcl" };
  return {
    problem: `--import-out '${file}': name a .ts file for cdktf code or a .tf file for HCL import blocks, or say which with --import-format cdktf|hcl`,
  };
}
