/** Global teardown of every jest project: stops the run's cluster, if one was started, and deletes the run's folder. */
import { rmSync } from "node:fs";
import { runDir } from "./run-dir";
import { stopRunPostgres } from "./run-postgres";

export default function globalTeardown(): void {
  try {
    stopRunPostgres();
  } finally {
    rmSync(runDir().dir, { recursive: true, force: true });
  }
}
