/**
 * JSON read into nodes that know their line, so that a problem in a configuration file names where it is.
 * JSON.parse keeps no positions; this is JSON's grammar (RFC 8259) and no more, strings decoded by JSON.parse.
 */
export type JsonNode =
  | { readonly kind: "object"; readonly line: number; readonly entries: readonly { readonly key: string; readonly line: number; readonly value: JsonNode }[] }
  | { readonly kind: "array"; readonly line: number; readonly items: readonly JsonNode[] }
  | { readonly kind: "string"; readonly line: number; readonly value: string }
  | { readonly kind: "number"; readonly line: number; readonly value: number }
  | { readonly kind: "boolean"; readonly line: number; readonly value: boolean }
  | { readonly kind: "null"; readonly line: number };

export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

// No control characters inside a string, as JSON requires.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

export function parseJsonWithLines(text: string): JsonNode {
  let pos = 0;
  let line = 1;
  const skip = () => {
    while (pos < text.length && /[ \t\r\n]/.test(text[pos]!)) if (text[pos++] === "\n") line++;
  };
  const fail = (what: string): never => {
    const found = pos < text.length ? `'${text[pos]}'` : "the end of the file";
    throw new JsonSyntaxError(`${what}, found ${found}`, line);
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const value = (): JsonNode => {
    skip();
    const at = line;
    const c = text[pos];
    if (c === "{") {
      pos++;
      const entries: { key: string; line: number; value: JsonNode }[] = [];
      skip();
      if (text[pos] === "}") return (pos++, { kind: "object", line: at, entries });
      for (;;) {
        skip();
        const keyLine = line;
        const raw = match(STRING) ?? fail("expected a key in double quotes");
        skip();
        if (text[pos] !== ":") fail("expected ':' after a key");
        pos++;
        entries.push({ key: JSON.parse(raw) as string, line: keyLine, value: value() });
        skip();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "}") return (pos++, { kind: "object", line: at, entries });
        else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const items: JsonNode[] = [];
      skip();
      if (text[pos] === "]") return (pos++, { kind: "array", line: at, items });
      for (;;) {
        items.push(value());
        skip();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "]") return (pos++, { kind: "array", line: at, items });
        else fail("expected ',' or ']'");
      }
    }
    const str = match(STRING);
    if (str !== undefined) return { kind: "string", line: at, value: JSON.parse(str) as string };
    const num = match(NUMBER);
    if (num !== undefined) return { kind: "number", line: at, value: Number(num) };
    const lit = match(LITERAL);
    if (lit !== undefined) return lit === "null" ? { kind: "null", line: at } : { kind: "boolean", line: at, value: lit === "true" };
    return fail("expected a JSON value");
  };
  const root = value();
  skip();
  if (pos < text.length) fail("expected the end of the JSON");
  return root;
}
