/** @tier unit */
/** mgmt_tag against mgmt serve: objects read from the tagged-objects view, sets without order, every change a replacement. */
import { apply, changes, create, destroy, importState, plan, refresh, startHarness, validate, type Harness } from "./harness";

const T = "mgmt_tag";
let h: Harness;
let web: number;
let db: number;
let zone: number;
beforeAll(async () => {
  h = await startHarness();
  const o = h.server.domain.objects;
  web = (await o.seedCompute({ label: "web-1", region: "eu-west" })).id;
  db = (await o.seedCompute({ label: "db-1", region: "eu-west" })).id;
  zone = (await o.seedDomain({ domain: "example.org", soa_email: "admin@example.org" })).id;
});
afterAll(() => h.close());

describe("mgmt_tag", () => {
  it("tags the listed objects and reads them back grouped by type, in any order", async () => {
    const state = await create(h, T, { label: "production", computes: [db, web], domains: [zone] });
    expect(state).toEqual({ id: "production", label: "production", computes: [db, web], domains: [zone], volumes: null, nodebalancers: null });
    const kinds: string[] = [];
    for await (const o of h.client.listTaggedObjects("production")) kinds.push(`${o.type}:${o.data.id}`);
    expect(kinds.sort()).toEqual([`compute:${db}`, `compute:${web}`, `domain:${zone}`].sort());
    expect((await refresh(h, T, state)).state).toEqual(state);
    expect(changes(h, T, state, (await plan(h, T, state, { label: "production", computes: [web, db], domains: [zone] })).plannedState)).toEqual([]);
  });

  it("replaces the tag when its objects or its label change (the API cannot change them)", async () => {
    const state = await create(h, T, { label: "staging", computes: [web] });
    const grown = await apply(h, T, state, { label: "staging", computes: [web, db] });
    expect(grown.planned.requiresReplace).toEqual(["computes"]);
    expect(grown.state!.computes).toEqual([db, web].sort((a, b) => a - b));
    const renamed = await apply(h, T, grown.state!, { label: "staging-2", computes: [web, db] });
    expect(renamed.planned.requiresReplace).toEqual(["label"]);
    await expect(h.client.listTaggedObjects("staging")[Symbol.asyncIterator]().next()).rejects.toMatchObject({ status: 404 });
    expect(await destroy(h, T, renamed.state!)).toEqual([]);
  });

  it("treats an empty list and an unset one alike, imports by label, and drops a deleted tag with a warning", async () => {
    const state = await create(h, T, { label: "empty", computes: [] });
    expect(state.computes).toEqual([]);
    expect((await refresh(h, T, state)).state).toEqual(state);
    expect((await importState(h, T, "empty")).state).toEqual({ ...state, computes: null });
    await h.client.deleteTag("empty");
    const read = await refresh(h, T, state);
    expect(read.state).toBeNull();
    expect(read.diagnostics[0]).toMatchObject({ severity: "warning", summary: 'mgmt_tag "empty" no longer exists' });
  });

  it("fails at apply on an id that is not the account's, naming the list and the id", async () => {
    const r = await apply(h, T, null, { label: "bad-ids", computes: [web, 999999] });
    expect(r.state).toBeNull();
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", attribute: [{ attribute: "computes" }], detail: expect.stringMatching(/computes\.\d: .*999999/) }),
    ]);
  });

  it("says that an object a tag names may not exist, rather than only that access is lacking", async () => {
    const r = await apply(h, T, null, { label: "no-such-zone", domains: [424242] });
    expect(r.state).toBeNull();
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        attribute: [{ attribute: "domains" }],
        detail: expect.stringMatching(/^domains\.0: You do not have read_write access to domain 424242 \(HTTP 403\) The account may have no such domain: /),
      }),
    ]);
  });

  it("refuses invalid values at validation, naming the attribute", async () => {
    expect(await validate(h, T, { label: "ab" })).toEqual([expect.objectContaining({ summary: "Invalid label", attribute: [{ attribute: "label" }] })]);
    expect(await validate(h, T, { label: "fine", volumes: [0] })).toEqual([expect.objectContaining({ summary: "Invalid volumes" })]);
  });
});
