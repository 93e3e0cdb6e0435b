/** Diagnostics and attribute paths, as the plugin reports them to the engine. */

export type PathStep = { readonly attribute: string } | { readonly key: string } | { readonly index: number };
export type AttributePath = readonly PathStep[];

export interface Diagnostic {
  readonly severity: "error" | "warning";
  readonly summary: string;
  readonly detail?: string;
  readonly attribute?: AttributePath;
}

export const attr = (...names: string[]): AttributePath => names.map((attribute) => ({ attribute }));

export const error = (summary: string, detail?: string, attribute?: AttributePath): Diagnostic => ({
  severity: "error",
  summary,
  ...(detail !== undefined ? { detail } : {}),
  ...(attribute !== undefined ? { attribute } : {}),
});

export const warning = (summary: string, detail?: string, attribute?: AttributePath): Diagnostic => ({
  severity: "warning",
  summary,
  ...(detail !== undefined ? { detail } : {}),
  ...(attribute !== undefined ? { attribute } : {}),
});

export const hasErrors = (diags: readonly Diagnostic[]): boolean => diags.some((d) => d.severity === "error");
