/** Global setup of every jest project: the run's shared folder (test/global/run-dir.ts). Starts nothing. */
import { prepareRunDir } from "./run-dir";

export default function globalSetup(): void {
  prepareRunDir();
}
