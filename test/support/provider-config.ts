/** The provider block as the engines send it when it sets nothing: every attribute null, every block empty. */
import { createProvider } from "../../src/provider";
import type { ObjectValue } from "../../src/provider/framework/value";

export function emptyProviderConfig(): ObjectValue {
  const { block } = createProvider().schemas().provider;
  return {
    ...Object.fromEntries(Object.keys(block.attributes ?? {}).map((name) => [name, null])),
    ...Object.fromEntries(
      Object.entries(block.block_types ?? {}).map(([name, bt]) => [name, bt.nesting_mode === "list" || bt.nesting_mode === "set" ? [] : null]),
    ),
  };
}
