/** @tier unit */
/**
 * The provider server tells the context about every write of a resource type, on both sides of
 * it and whether it succeeds or fails, and about nothing else: what keeps batched-read snapshots
 * honest without a resource remembering to drop them.
 */
import { string } from "../../src/provider/framework/attributes";
import { createProviderServer } from "../../src/provider/framework/provider-server";
import { PartialApply, defineResource } from "../../src/provider/framework/resource";
import { Unknown } from "../../src/provider/framework/value";

interface Ctx {
  readonly log: string[];
}

const state = { id: "1", label: "a" };

const widget = defineResource<Ctx>()({
  typeName: "test_widget",
  description: "A widget.",
  importId: { description: "any", example: "1" },
  attributes: { id: string("computed", "Id."), label: string("required", "Label.") },
  create: async ({ ctx }, planned) => {
    ctx.log.push("create");
    if (planned.label === "partial") throw new PartialApply({ ...state, label: "partial" }, new Error("half done"));
    if (planned.label === "fail") throw new Error("refused");
    return { id: "1", label: planned.label };
  },
  read: async ({ ctx }, s) => (ctx.log.push("read"), s),
  update: async ({ ctx }, _prior, planned) => (ctx.log.push("update"), { id: "1", label: planned.label }),
  delete: async ({ ctx }) => void ctx.log.push("delete"),
  importState: async ({ ctx }) => (ctx.log.push("import"), state),
});

async function provider() {
  const ctx: Ctx = { log: [] };
  const server = createProviderServer<Ctx>({
    description: "Test.",
    version: "0.0.0-test",
    attributes: {},
    configure: async () => ({ ctx }),
    resources: [widget],
    dataSources: [],
    written: (c, typeName) => void c.log.push(`written ${typeName}`),
    describeFailure: (operation, err) => [{ severity: "error", summary: operation, detail: String(err) }],
  });
  await server.configure({});
  return { server, log: ctx.log };
}

describe("written", () => {
  it("brackets each create, update and delete of the type", async () => {
    const { server, log } = await provider();
    await server.applyResourceChange("test_widget", { priorState: null, plannedState: { id: Unknown, label: "a" }, config: { id: null, label: "a" } });
    await server.applyResourceChange("test_widget", { priorState: state, plannedState: { ...state, label: "b" }, config: { id: null, label: "b" } });
    await server.applyResourceChange("test_widget", { priorState: state, plannedState: null, config: null });
    const w = "written test_widget";
    expect(log).toEqual([w, "create", w, w, "update", w, w, "delete", w]);
  });

  it("reports a write that failed, whole or in part, as written", async () => {
    const { server, log } = await provider();
    const failed = await server.applyResourceChange("test_widget", {
      priorState: null,
      plannedState: { id: Unknown, label: "fail" },
      config: { id: null, label: "fail" },
    });
    expect(failed.diagnostics.map((d) => d.severity)).toEqual(["error"]);
    const partial = await server.applyResourceChange("test_widget", {
      priorState: null,
      plannedState: { id: Unknown, label: "partial" },
      config: { id: null, label: "partial" },
    });
    expect(partial.newState).toEqual({ id: "1", label: "partial" });
    const w = "written test_widget";
    expect(log).toEqual([w, "create", w, w, "create", w]);
  });

  it("says nothing for reads, plans and imports", async () => {
    const { server, log } = await provider();
    await server.readResource("test_widget", state, undefined);
    await server.planResourceChange("test_widget", { priorState: state, proposedNewState: { ...state, label: "b" }, config: { id: null, label: "b" } });
    await server.importResourceState("test_widget", "1");
    expect(log).toEqual(["read", "import"]);
  });
});
