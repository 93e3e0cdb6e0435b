/** @tier unit */
/** mgmt_account_contact and mgmt_profile_settings: adoption, only configured attributes managed, forget on delete. */
import { sshKeyText } from "../../testkit/ssh-keys";
import { apply, changes, create, destroy, importState, plan, refresh, startHarness, validate, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("mgmt_account_contact", () => {
  const T = "mgmt_account_contact";

  it("adopts the account, sends only what is configured, and shows the rest live without a diff", async () => {
    await h.client.updateAccount({ first_name: "Ada", phone: "555-0100" });
    const state = await create(h, T, { city: "Philadelphia", country: "us", state: "pa", zip: "19106" });
    const account = await h.client.getAccount();
    expect(state).toMatchObject({ id: account.euuid, city: "Philadelphia", country: "us", state: "pa", zip: "19106", first_name: "Ada", phone: "555-0100" });
    expect(account).toMatchObject({ country: "US", state: "PA" });
    // The API's upper-case codes are the configured ones.
    expect((await refresh(h, T, state)).state).toEqual(state);

    // An out-of-band change to an unmanaged field shows live and is no diff; to a managed one it is repaired.
    await h.client.updateAccount({ phone: "555-0199", city: "Pittsburgh" });
    const drifted = (await refresh(h, T, state)).state!;
    expect(drifted).toMatchObject({ phone: "555-0199", city: "Pittsburgh" });
    const p = await plan(h, T, drifted, { city: "Philadelphia", country: "us", state: "pa", zip: "19106" });
    expect(changes(h, T, drifted, p.plannedState)).toEqual(["city"]);
    const repaired = await apply(h, T, drifted, { city: "Philadelphia", country: "us", state: "pa", zip: "19106" });
    expect(repaired.state).toMatchObject({ city: "Philadelphia", phone: "555-0199" });
    expect((await h.client.getAccount()).phone).toBe("555-0199");
  });

  it("destroys by forgetting, with a warning, changing nothing; imports with any id", async () => {
    const state = (await importState(h, T, "account")).state!;
    expect(state.id).toBe((await h.client.getAccount()).euuid);
    const diags = await destroy(h, T, state);
    expect(diags).toEqual([expect.objectContaining({ severity: "warning", summary: "mgmt_account_contact removed from state only" })]);
    expect((await h.client.getAccount()).city).toBe(state.city);
  });

  it("checks the contract's address rules at plan when the country is configured", async () => {
    expect(await validate(h, T, { country: "US", zip: "ABC" })).toEqual([
      expect.objectContaining({ summary: "Invalid zip", attribute: [{ attribute: "zip" }] }),
    ]);
    expect(await validate(h, T, { country: "CA", state: "XX" })).toEqual([
      expect.objectContaining({ summary: "Invalid state", attribute: [{ attribute: "state" }] }),
    ]);
    expect(await validate(h, T, { country: "DE", zip: "ABC", state: "Bayern" })).toEqual([]);
    expect(await validate(h, T, { city: "x".repeat(25) })).toEqual([expect.objectContaining({ summary: "Invalid city" })]);
    expect(await validate(h, T, { country: "USA" })).toEqual([expect.objectContaining({ summary: "Invalid country" })]);
  });
});

describe("mgmt_profile_settings", () => {
  const T = "mgmt_profile_settings";
  const KEY = sshKeyText("ed25519", "lish@laptop");

  it("adopts the profile, manages only what is configured, and keeps the configured form of keys", async () => {
    const state = await create(h, T, { timezone: "Europe/Berlin", authorized_keys: [KEY] });
    const profile = await h.client.getProfile();
    expect(profile).toMatchObject({ timezone: "Europe/Berlin", authorized_keys: [KEY] });
    expect(state).toMatchObject({ id: String(profile.uid), timezone: "Europe/Berlin", email: profile.email, lish_auth_method: profile.lish_auth_method });
    const recommented = KEY.replace("lish@laptop", "other comment");
    expect(changes(h, T, state, (await plan(h, T, state, { timezone: "Europe/Berlin", authorized_keys: [recommented] })).plannedState)).toEqual([]);

    await h.client.updateProfile({ timezone: "UTC", email_notifications: false });
    const drifted = (await refresh(h, T, state)).state!;
    const p = await plan(h, T, drifted, { timezone: "Europe/Berlin", authorized_keys: [KEY] });
    expect(changes(h, T, drifted, p.plannedState)).toEqual(["timezone"]);
    await apply(h, T, drifted, { timezone: "Europe/Berlin", authorized_keys: [KEY] });
    expect(await h.client.getProfile()).toMatchObject({ timezone: "Europe/Berlin", email_notifications: false });
  });

  it("refuses turning the IP allow-list on and bad values at plan; the API refuses changing restricted at apply", async () => {
    expect(await validate(h, T, { ip_whitelist_enabled: true })).toEqual([expect.objectContaining({ summary: "Invalid ip_whitelist_enabled" })]);
    expect(await validate(h, T, { ip_whitelist_enabled: false })).toEqual([]);
    expect(await validate(h, T, { lish_auth_method: "password" })).toEqual([expect.objectContaining({ summary: "Invalid lish_auth_method" })]);
    expect(await validate(h, T, { timezone: "Mars/Olympus" })).toEqual([expect.objectContaining({ summary: "Invalid timezone" })]);
    expect(await validate(h, T, { authorized_keys: ["ssh-ed25519 nope"] })).toEqual([expect.objectContaining({ summary: "Invalid authorized_keys" })]);
    const r = await apply(h, T, null, { restricted: true });
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: "error", attribute: [{ attribute: "restricted" }] })]);
  });
});
