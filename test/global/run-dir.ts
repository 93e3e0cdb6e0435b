/**
 * A folder for what one jest run shares between its workers (the run's Postgres cluster), made by the
 * run's global setup and deleted by its global teardown. Workers inherit its path, and the main process's
 * id, through the environment.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../support/process-alive";

const DIR = "MGMT_TEST_RUN_DIR";
const OWNER = "MGMT_TEST_RUN_PID";
const PREFIX = "mgmt-test-run-";

/** In the main process: the run's folder, made on the first call (global setups call it in whatever order jest takes them). */
export function prepareRunDir(): string {
  if (process.env[DIR] === undefined) {
    // A run that was killed could not delete its folder (its cluster's watchdog stopped the cluster): the next run does.
    for (const name of readdirSync(tmpdir())) {
      const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
      if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
    process.env[DIR] = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    process.env[OWNER] = String(process.pid);
  }
  return process.env[DIR];
}

/** In any process of the run: its folder and the process whose end ends what the run started. */
export function runDir(): { readonly dir: string; readonly owner: number } {
  const dir = process.env[DIR];
  const owner = Number(process.env[OWNER]);
  if (!dir || !owner) throw new Error(`${DIR} is not set: run the tests through jest.config.js, whose global setup (test/global/setup.ts) makes it`);
  return { dir, owner };
}
