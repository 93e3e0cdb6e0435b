/** @tier engine */
/**
 * `mgmt schema` (what the cdktf binding generator reads) against what each engine itself prints
 * from the running plugin with `providers schema -json`. An engine that predates a protocol
 * feature (OpenTofu 1.6: no functions, no ephemeral resources) prints the parts it knows, and
 * those must match too.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableEngines, engineEnvironment, runEngine, writeCliConfig, type Engine } from "../../src/harness/engine";
import { runProcess } from "../../src/harness/process";
import { repoPath } from "../../src/harness/paths";
import { PROVIDER_SOURCE } from "../../src/provider/identity";

type SchemaJson = { provider_schemas: Record<string, Record<string, unknown>> };

let ours: Record<string, unknown>;
beforeAll(async () => {
  const printed = await runProcess(process.execPath, [repoPath("dist/cli.js"), "schema"], {});
  ours = (JSON.parse(printed.stdout) as SchemaJson).provider_schemas[PROVIDER_SOURCE]!;
});

test.each(availableEngines())(
  "$name prints the schema mgmt schema prints",
  async (engine: Engine) => {
    const dir = mkdtempSync(join(tmpdir(), `mgmt-schema-${engine.name}-`));
    try {
      writeFileSync(join(dir, "main.tf.json"), JSON.stringify({ terraform: { required_providers: { mgmt: { source: PROVIDER_SOURCE } } } }));
      const env = engineEnvironment({ cliConfig: writeCliConfig(dir), url: "http://127.0.0.1:9/v4", token: "unused" });
      const r = await runEngine(engine, ["providers", "schema", "-json"], dir, env);
      expect(r.code).toBe(0);
      const theirs = (JSON.parse(r.stdout) as SchemaJson).provider_schemas[PROVIDER_SOURCE]!;
      expect(Object.keys(theirs)).toEqual(expect.arrayContaining(["provider", "resource_schemas", "data_source_schemas"]));
      if (engine.name === "terraform") expect(Object.keys(theirs)).toEqual(expect.arrayContaining(["ephemeral_resource_schemas", "functions"]));
      for (const [part, value] of Object.entries(theirs)) expect([part, value]).toEqual([part, ours[part]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
