/**
 * Issue 44, item 6: an object whose create committed and whose read-back was cancelled by a
 * graceful stop (StopProvider) is answered as created, with a warning and no error, so the
 * engine records it rather than tainting it (the next apply replaced 50 tags that were fine).
 * The same partial create without a stop is still an error: the engine taints it, as it should.
 */
import { string } from "../../src/provider/framework/attributes";
import { createProviderServer } from "../../src/provider/framework/provider-server";
import { PartialApply, defineResource } from "../../src/provider/framework/resource";
import { Unknown } from "../../src/provider/framework/value";

const widget = defineResource<Record<string, never>>()({
  typeName: "test_widget",
  description: "A widget.",
  importId: { description: "any", example: "1" },
  attributes: { id: string("computed", "Id."), label: string("required", "Label."), shown: string("computed", "Known from the read-back only.") },
  create: async (op, planned) => {
    // The write went out; the read-back after it is what a stop cancels.
    if (op.signal.aborted) throw new PartialApply({ ...planned, id: "7" }, new Error("This operation was aborted"));
    throw new PartialApply({ ...planned, id: "7" }, new Error("read-back failed"));
  },
  read: async (_op, s) => s,
  update: async (_op, prior) => prior,
  delete: async () => undefined,
  importState: async () => null,
});

async function provider() {
  const server = createProviderServer<Record<string, never>>({
    description: "Test.",
    version: "0.0.0-test",
    attributes: {},
    configure: async () => ({ ctx: {} }),
    resources: [widget],
    dataSources: [],
    describeFailure: (operation, err) => [{ severity: "error", summary: operation, detail: String(err) }],
  });
  await server.configure({});
  return server;
}

const create = { priorState: null, plannedState: { id: Unknown, label: "a", shown: Unknown }, config: { id: null, label: "a", shown: null } } as const;

test("without a stop, a create that could not be read back is an error (the engine taints it)", async () => {
  const server = await provider();
  const r = await server.applyResourceChange("test_widget", create);
  expect(r.diagnostics.map((d) => d.severity)).toEqual(["error"]);
  expect(r.newState).toEqual({ id: "7", label: "a", shown: null });
});

test("after a stop, the same create is recorded as created: a warning, no error, the state as far as it is known", async () => {
  const server = await provider();
  await server.stop();
  const r = await server.applyResourceChange("test_widget", create);
  expect(r.diagnostics).toEqual([expect.objectContaining({ severity: "warning", summary: "test_widget: written, not read back" })]);
  expect(r.newState).toEqual({ id: "7", label: "a", shown: null });
});
