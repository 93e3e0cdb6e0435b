/** The apply's gate: the merge-time plan against the reviewed one, and the schedule's "only rotations". */
import { nonRotations, reviewDifferences } from "../../src/report/reviewed";

const change = (address: string, actions: string[], rotation?: string) => ({
  address,
  type: address.split(".")[0]!,
  actions,
  attributes: [],
  ...(rotation !== undefined ? { rotation } : {}),
});

describe("reviewDifferences", () => {
  it("agrees when every address has the same actions, in any order of addresses", () => {
    const reviewed = { changes: [change("mgmt_tag.team", ["update"]), change("mgmt_ssh_key.a", ["create"])] };
    expect(reviewDifferences(reviewed, { changes: [...reviewed.changes].reverse() })).toEqual([]);
  });

  it("names each address that changed, appeared or went away since review", () => {
    const reviewed = { changes: [change("mgmt_tag.team", ["update"]), change("mgmt_ssh_key.a", ["create"])] };
    const now = { changes: [change("mgmt_tag.team", ["delete", "create"]), change("mgmt_token.ci", ["update"])] };
    expect(reviewDifferences(reviewed, now)).toEqual([
      "`mgmt_ssh_key.a`: reviewed create, not in the plan now",
      "`mgmt_tag.team`: reviewed update, now delete, create",
      "`mgmt_token.ci`: not in the reviewed plan, now update",
    ]);
  });
});

describe("nonRotations", () => {
  it("is empty for a plan that only rotates tokens, or changes nothing", () => {
    expect(nonRotations({ changes: [change("mgmt_token.ci", ["update"], "expires 2026-12-05, inside renew_before 168h")] })).toEqual([]);
    expect(nonRotations({ changes: [] })).toEqual([]);
  });

  it("names every other change, which the schedule leaves to review", () => {
    const now = { changes: [change("mgmt_token.ci", ["update"], "expires 2026-12-05, inside renew_before 168h"), change("mgmt_tag.team", ["update"])] };
    expect(nonRotations(now)).toEqual(["`mgmt_tag.team`: update"]);
  });
});
