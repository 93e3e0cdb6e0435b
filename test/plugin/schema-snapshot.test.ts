/** @tier unit */
/**
 * The built plugin answers GetProviderSchema, the engines' first call on every start, with bytes
 * the build computed from the provider bundle (scripts/build.mjs, src/plugin/schema-snapshot.ts),
 * without loading the provider. Here: that answer needs no provider at all, and it is exactly what
 * the provider computes at run time, so it cannot go stale unnoticed.
 */
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { encodeProviderSchemaResponse } from "../../src/plugin/provider-service";
import { tfplugin6 } from "../../src/plugin/proto/gen/messages";
import { createProvider } from "../../src/provider";
import { PluginHarness } from "../../testkit/plugin-harness";

let dir: string;
let h: PluginHarness;

beforeAll(async () => {
  // The plugin's bundles (dist/plugin.js and the plugin-main.js it runs, dist/services.js required after the handshake,
  // dist/calls.js after the first answer)
  // and the precomputed answer, without the provider bundle beside them.
  dir = mkdtempSync(join(tmpdir(), "mgmt-plugin-alone-"));
  for (const bundle of ["plugin.js", "plugin-main.js", "services.js", "calls.js", "schema-response.bin"])
    copyFileSync(repoPath("dist", bundle), join(dir, bundle));
  const executable = join(dir, "terraform-provider-mgmt");
  writeFileSync(executable, `#!/usr/bin/env node\nrequire("./plugin.js");\n`);
  chmodSync(executable, 0o755);
  h = await PluginHarness.start({ executable });
});

afterAll(async () => {
  await h?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test("GetProviderSchema is answered without the provider, with what the provider computes at run time", async () => {
  const served = await h.rawUnary("/tfplugin6.Provider/GetProviderSchema");
  const computed = encodeProviderSchemaResponse(createProvider().schemas());
  // Decoded first, for a readable difference; then the bytes, which are what the engines get.
  expect(tfplugin6.GetProviderSchema.Response.decode(served)).toEqual(tfplugin6.GetProviderSchema.Response.decode(computed));
  expect(served).toEqual(Buffer.from(computed));
});

test("calls that need the provider load it (here, and only here, it is missing)", async () => {
  const { provider } = await h.getProviderSchema();
  const config = Object.fromEntries(Object.keys(provider.block.attributes ?? {}).map((name) => [name, null]));
  expect((await h.validateProviderConfig(config)).diagnostics).toMatchObject([
    { severity: "error", summary: "Failed to load the provider", detail: expect.stringContaining("provider.js") },
  ]);
});
