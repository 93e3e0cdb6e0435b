/** @tier unit */
/**
 * The protocol 6.5 and 6.7 RPCs through the fixture plugin over the real transport: ephemeral
 * resources (validate, open with a renewal time and private data, renew, close) and provider
 * functions (schema, a call, an argument error, a provider failure).
 */
import { decodeValue, encodeValue } from "../../src/plugin/codec";
import { tfplugin6 } from "../../src/plugin/proto/gen/messages";
import { blockType } from "../../src/provider/framework/schema";
import type { ObjectValue } from "../../src/provider/framework/value";
import { type BuiltPlugin, buildPlugin } from "./build-fixture";
import { LEASE_RENEW_AT, leaseSchema } from "./fixtures/provider";
import { PluginHarness } from "../../testkit/plugin-harness";

const P = tfplugin6;
const leaseType = blockType(leaseSchema.block);

let plugin: BuiltPlugin;
let h: PluginHarness;

beforeAll(async () => {
  plugin = await buildPlugin();
  h = await PluginHarness.start({ executable: plugin.executable });
});

afterAll(async () => {
  await h?.kill();
  plugin?.cleanup();
});

const call = async <Res>(method: string, request: Uint8Array, response: { decode(b: Uint8Array): Res }): Promise<Res> =>
  response.decode(await h.rawUnary(`/tfplugin6.Provider/${method}`, Buffer.from(request)));

const lease = (holder: string): tfplugin6.IDynamicValue => ({ msgpack: encodeValue({ holder, secret: null }, leaseType) });

describe("schemas", () => {
  test("GetProviderSchema carries the ephemeral resource schemas and the function signatures", async () => {
    const s = await call("GetProviderSchema", P.GetProviderSchema.Request.encode({}).finish(), P.GetProviderSchema.Response);
    const attrs = s.ephemeralResourceSchemas.mgmt_lease!.block!.attributes!;
    expect(attrs.map((a) => [a.name, a.computed, a.sensitive])).toEqual([
      ["holder", false, false],
      ["secret", true, true],
    ]);
    const shout = s.functions.shout!;
    expect(shout.summary).toBe("Upper-cases a string");
    expect(Buffer.from(shout.return!.type!).toString()).toBe('"string"');
    expect(shout.parameters!.map((p) => [p.name, Buffer.from(p.type!).toString(), p.allowNullValue, p.allowUnknownValues])).toEqual([
      ["text", '"string"', false, false],
    ]);
  });

  test("GetFunctions and GetMetadata list the same", async () => {
    const f = await call("GetFunctions", P.GetFunctions.Request.encode({}).finish(), P.GetFunctions.Response);
    expect(Object.keys(f.functions)).toEqual(["shout"]);
    const m = await call("GetMetadata", P.GetMetadata.Request.encode({}).finish(), P.GetMetadata.Response);
    expect(m.ephemeralResources.map((e) => e.typeName)).toEqual(["mgmt_lease"]);
    expect(m.functions.map((e) => e.name)).toEqual(["shout"]);
  });
});

describe("ephemeral resources", () => {
  test("validate reports the provider's diagnostics with their path", async () => {
    const res = await call(
      "ValidateEphemeralResourceConfig",
      P.ValidateEphemeralResourceConfig.Request.encode({ typeName: "mgmt_lease", config: lease("") }).finish(),
      P.ValidateEphemeralResourceConfig.Response,
    );
    expect(res.diagnostics.map((d) => [d.summary, d.attribute?.steps?.[0]?.attributeName])).toEqual([["Empty holder", "holder"]]);
  });

  test("open answers the value, a renewal time and private data that renew and close get back", async () => {
    const opened = await call(
      "OpenEphemeralResource",
      P.OpenEphemeralResource.Request.encode({ typeName: "mgmt_lease", config: lease("ann") }).finish(),
      P.OpenEphemeralResource.Response,
    );
    expect(opened.diagnostics).toEqual([]);
    const value = decodeValue(opened.result!.msgpack!, leaseType) as ObjectValue;
    expect(value.holder).toBe("ann");
    expect(value.secret).toMatch(/^lease-\d+$/);
    expect(Number(opened.renewAt!.seconds) * 1000 + opened.renewAt!.nanos! / 1e6).toBe(LEASE_RENEW_AT.getTime());
    const priv = Buffer.from(opened.private!);
    expect(`lease-${priv}`).toBe(value.secret);

    const renewed = await call(
      "RenewEphemeralResource",
      P.RenewEphemeralResource.Request.encode({ typeName: "mgmt_lease", private: priv }).finish(),
      P.RenewEphemeralResource.Response,
    );
    expect(renewed.diagnostics).toEqual([]);
    // Nothing new from the provider: the same private data goes back, or the next renew would get none.
    expect(Buffer.from(renewed.private!).toString()).toBe(priv.toString());

    const closed = await call(
      "CloseEphemeralResource",
      P.CloseEphemeralResource.Request.encode({ typeName: "mgmt_lease", private: priv }).finish(),
      P.CloseEphemeralResource.Response,
    );
    expect(closed.diagnostics).toEqual([]);
  });

  test("an unknown type is a diagnostic naming the known ones", async () => {
    const res = await call(
      "OpenEphemeralResource",
      P.OpenEphemeralResource.Request.encode({ typeName: "mgmt_nope", config: lease("x") }).finish(),
      P.OpenEphemeralResource.Response,
    );
    expect(res.diagnostics[0]).toMatchObject({ summary: 'Unknown ephemeral resource type "mgmt_nope"' });
    expect(res.diagnostics[0]!.detail).toContain("mgmt_lease");
  });
});

describe("functions", () => {
  const shout = (args: tfplugin6.IDynamicValue[], name = "shout") =>
    call("CallFunction", P.CallFunction.Request.encode({ name, arguments: args }).finish(), P.CallFunction.Response);
  const text = (s: string): tfplugin6.IDynamicValue => ({ msgpack: encodeValue(s, "string") });

  test("a call answers the result", async () => {
    const res = await shout([text("hi")]);
    expect(res.error).toBeNull();
    expect(decodeValue(res.result!.msgpack!, "string")).toBe("HI");
  });

  test("an argument the function refuses is a function error naming the argument's index", async () => {
    const res = await shout([text("")]);
    expect(res.error!.text).toBe("text must not be empty");
    expect(Number(res.error!.functionArgument)).toBe(0);
  });

  test("a wrong argument count, an unknown function and a failing provider are function errors, not crashes", async () => {
    expect((await shout([])).error!.text).toBe("shout takes 1 argument(s), got 0");
    expect((await shout([text("a")], "whisper")).error!.text).toContain('Unknown function "whisper"');
    expect((await shout([text("throw")])).error!.text).toContain("shout failed");
    // Still serving.
    expect(decodeValue((await shout([text("ok")])).result!.msgpack!, "string")).toBe("OK");
  });
});
