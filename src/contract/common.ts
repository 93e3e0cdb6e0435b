/** Shapes every area shares: timestamps, the error body, the paginated envelope, page bounds. */
import { z } from "zod";
import { PATH_ID_PATTERN, type FieldRule } from "./field-rules";
import { TIMESTAMP_PATTERN, parseDateTimeInput } from "./timestamps";

export const Timestamp = z.string().regex(TIMESTAMP_PATTERN, "must be a UTC timestamp YYYY-MM-DDTHH:MM:SS");

/** A date-time a client sends (see `parseDateTimeInput`); the output is the wire form. */
export const DateTimeInput = z.string().transform((text, ctx) => {
  const wire = parseDateTimeInput(text);
  if (wire === undefined) {
    ctx.addIssue({ code: "custom", message: "must be a date-time such as 2030-01-01T00:00:00 (UTC)" });
    return z.NEVER;
  }
  return wire;
});

/** A string schema that applies a field rule (./field-rules.ts), its reason the issue's message. */
export function ruled(rule: FieldRule, typeMessage?: string) {
  return z.string(typeMessage).superRefine((text, ctx) => {
    const reason = rule(text);
    if (reason !== undefined) ctx.addIssue({ code: "custom", message: reason });
  });
}

export const ErrorItem = z.object({
  field: z.string().nullish(),
  reason: z.string(),
});
export const ErrorBody = z.object({ errors: z.array(ErrorItem).min(1) });
export type ErrorItem = z.infer<typeof ErrorItem>;
export type ErrorBody = z.infer<typeof ErrorBody>;

export const EmptyBody = z.object({}).strict();

export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    page: z.number().int().min(1),
    pages: z.number().int().min(0),
    results: z.number().int().min(0),
  });
}
export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

/** Upstream bounds, applied to every list (the contract leaves them "not shown"). */
export const PAGE_SIZE = { min: 25, max: 500, default: 100 } as const;

const intParam = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a positive integer`)
    .transform((s) => Number(s));

export const PageQuery = z.object({
  // A page number past 2^53-1 (which a number cannot hold) is a page past the end, as any
  // other too-large page is, not a validator's message (issue 47, item 8).
  page: intParam("page")
    .transform((n) => Math.min(n, Number.MAX_SAFE_INTEGER))
    .pipe(z.number().int().min(1, "page must be at least 1"))
    .optional()
    .transform((v) => v ?? 1),
  page_size: intParam("page_size")
    .pipe(
      z
        .number()
        .int()
        .min(PAGE_SIZE.min, `page_size must be between ${PAGE_SIZE.min} and ${PAGE_SIZE.max}`)
        .max(PAGE_SIZE.max, `page_size must be between ${PAGE_SIZE.min} and ${PAGE_SIZE.max}`),
    )
    .optional()
    .transform((v) => v ?? PAGE_SIZE.default),
});
export type PageQuery = z.output<typeof PageQuery>;

/** Path ids are positive integers; anything else is simply not found. */
export const PathId = z.string().regex(PATH_ID_PATTERN).transform(Number);
