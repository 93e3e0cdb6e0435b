/**
 * A bridge for test/e2e/team-repo-terraform.test.ts alone, which another branch is changing as this
 * one moves the keys: they live in testkit/ssh-keys.ts now, shared with the benchmarks. Drop this
 * folder once that test imports them from testkit.
 */
export { sshKeyText } from "../../../testkit/ssh-keys";
