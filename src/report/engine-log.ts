/**
 * The engine's machine-readable log (`plan -json`: one JSON object a line), as far as the reports read
 * it: the diagnostics. `show -json PLANFILE` carries none, so a warning the provider gave at plan (a
 * misspelled scope area, an adopted object) reaches a review only through this log.
 */
import { z } from "zod";
import { PlanFormatError } from "./plan-model";

const Position = z.object({ line: z.number() });
const Diagnostic = z.object({
  severity: z.string(),
  summary: z.string(),
  detail: z.string().optional(),
  address: z.string().optional(),
  // `snippet` (the configuration lines, values and all) is deliberately not read.
  range: z.object({ filename: z.string(), start: Position }).optional(),
});
const LogLine = z.object({ type: z.string(), diagnostic: Diagnostic.optional() });

export interface EngineDiagnostic {
  readonly severity: "warning" | "error";
  readonly summary: string;
  readonly detail: string;
  /** The resource the diagnostic is about, when the engine says (`mgmt_token.ci`). */
  readonly address?: string;
  readonly filename?: string;
  readonly line?: number;
}

/**
 * The diagnostics of a `plan -json` log, each once (in the order first given). Lines that are not JSON
 * objects are skipped (a wrapper's own output); a log with no line of the format at all is refused.
 */
export function parseEngineLog(text: string): EngineDiagnostic[] {
  const out: EngineDiagnostic[] = [];
  const seen = new Set<string>();
  let recognised = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("{")) continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = LogLine.safeParse(data);
    if (!parsed.success) continue;
    recognised++;
    const d = parsed.data.diagnostic;
    if (parsed.data.type !== "diagnostic" || d === undefined) continue;
    if (d.severity !== "warning" && d.severity !== "error") continue;
    const diagnostic: EngineDiagnostic = {
      severity: d.severity,
      summary: d.summary,
      detail: d.detail ?? "",
      ...(d.address !== undefined ? { address: d.address } : {}),
      ...(d.range !== undefined ? { filename: d.range.filename, line: d.range.start.line } : {}),
    };
    const key = JSON.stringify(diagnostic);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(diagnostic);
  }
  if (recognised === 0) {
    throw new PlanFormatError(
      text.trim() === ""
        ? "the log is empty; expected the output of 'terraform plan -json' or 'tofu plan -json'"
        : "the log has no line of the engines' machine-readable format; expected the output of 'terraform plan -json' or 'tofu plan -json'",
    );
  }
  return out;
}
