/** @tier unit */
/** Which account `mgmt drift --unmanaged` lists: the one the stack's default provider acts in. */
import { stackChildAccount } from "../../src/cli/drift";

const show = (expressions?: Record<string, unknown>, name = "mgmt") =>
  JSON.stringify({ format_version: "1.2", configuration: { provider_config: expressions ? { [name]: { name: "mgmt", expressions } } : {} } });

describe("stackChildAccount", () => {
  it("takes a literal child_account.euuid from the configuration, over the environment", () => {
    expect(stackChildAccount(show({ child_account: [{ euuid: { constant_value: "A-1" } }] }), { MGMT_CHILD_ACCOUNT_EUUID: "B-2" })).toBe("A-1");
  });

  it("falls back to MGMT_CHILD_ACCOUNT_EUUID without the block, as the provider does", () => {
    expect(stackChildAccount(show({ url: { constant_value: "http://x/v4" } }), { MGMT_CHILD_ACCOUNT_EUUID: "B-2" })).toBe("B-2");
    expect(stackChildAccount(show(), { MGMT_CHILD_ACCOUNT_EUUID: "" })).toBeUndefined();
    expect(stackChildAccount(show(), {})).toBeUndefined();
  });

  it("looks at the default provider only: an alias acting in a child account lists nothing of it", () => {
    expect(stackChildAccount(show({ child_account: [{ euuid: { constant_value: "A-1" } }] }, "mgmt.child"), {})).toBeUndefined();
  });

  it("refuses an euuid it cannot read, saying what to do", () => {
    expect(() => stackChildAccount(show({ child_account: [{ euuid: { references: ["var.child"] } }] }), {})).toThrow(
      /not a literal in the configuration.*make child_account.euuid a literal, or leave the block out and set MGMT_CHILD_ACCOUNT_EUUID/,
    );
  });
});
