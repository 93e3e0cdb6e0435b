/** @tier unit */
/** mgmt_oauth_client against mgmt serve: the secret kept and reset, in-place updates, thumbnails as bytes. */
import { REDACTED_SECRET } from "../../src/contract";
import { Unknown } from "../../src/provider/framework/value";
import { GIF_1X1, PNG_1X1 } from "../support/images";
import { apply, changes, create, destroy, importState, plan, refresh, startHarness, validate, type Harness } from "./harness";

const T = "mgmt_oauth_client";
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const base = { label: "dashboard", redirect_uri: "https://example.com/callback" };

describe("mgmt_oauth_client", () => {
  it("creates with the secret from the answer and never overwrites it with the redacted form", async () => {
    const state = await create(h, T, base);
    expect(state).toMatchObject({ ...base, public: false, status: "active", thumbnail_url: null, thumbnail: null });
    expect(state.secret).toEqual(expect.any(String));
    expect(state.secret).not.toBe(REDACTED_SECRET);
    expect((await h.client.getOAuthClient(state.id as string)).secret).toBe(REDACTED_SECRET);
    expect((await refresh(h, T, state)).state).toEqual(state);
  });

  it("updates label, redirect_uri and public in place, keeping the secret", async () => {
    const state = await create(h, T, base);
    const r = await apply(h, T, state, { label: "renamed", redirect_uri: "https://example.org/cb", public: true });
    expect(r.planned.requiresReplace).toEqual([]);
    expect(r.state).toEqual({ ...state, label: "renamed", redirect_uri: "https://example.org/cb", public: true });
    expect(await h.client.getOAuthClient(state.id as string)).toMatchObject({ label: "renamed", public: true });
  });

  it("resets the secret in place when secret_version changes, and only then", async () => {
    const state = await create(h, T, { ...base, secret_version: 1 });
    expect(changes(h, T, state, (await plan(h, T, state, { ...base, secret_version: 1 })).plannedState)).toEqual([]);
    const p = await plan(h, T, state, { ...base, secret_version: 2 });
    expect(p.requiresReplace).toEqual([]);
    expect(p.plannedState.secret).toBe(Unknown);
    const r = await apply(h, T, state, { ...base, secret_version: 2 });
    expect(r.state!.id).toBe(state.id);
    expect(r.state!.secret).not.toBe(state.secret);
    expect(r.state!.secret_version).toBe(2);
  });

  it("uploads a thumbnail with the sniffed type, detects a different image out of band and repairs it", async () => {
    const state = await create(h, T, { ...base, thumbnail: PNG_1X1 });
    expect(state.thumbnail).toBe(PNG_1X1);
    expect(state.thumbnail_url).toMatch(/\/thumbnail$/);
    const served = await h.client.getOAuthClientThumbnail(state.id as string);
    expect(served).toMatchObject({ contentType: "image/png" });
    expect(served.data.toString("base64")).toBe(PNG_1X1);
    // The same bytes, line-wrapped, are no change.
    const wrapped = PNG_1X1.replace(/(.{20})/g, "$1\n");
    expect(changes(h, T, state, (await plan(h, T, state, { ...base, thumbnail: wrapped })).plannedState)).toEqual([]);

    await h.client.setOAuthClientThumbnail(state.id as string, { contentType: "image/gif", data: Buffer.from(GIF_1X1, "base64") });
    const drifted = (await refresh(h, T, state)).state!;
    expect(drifted.thumbnail).toBe(GIF_1X1);
    const repaired = await apply(h, T, drifted, { ...base, thumbnail: PNG_1X1 });
    expect(repaired.state!.thumbnail).toBe(PNG_1X1);
    expect((await h.client.getOAuthClientThumbnail(state.id as string)).contentType).toBe("image/png");
  });

  it("stops managing a thumbnail removed from the configuration, without touching it", async () => {
    const state = await create(h, T, { ...base, thumbnail: PNG_1X1 });
    const r = await apply(h, T, state, base);
    expect(r.state!.thumbnail).toBeNull();
    expect((await h.client.getOAuthClientThumbnail(state.id as string)).data.toString("base64")).toBe(PNG_1X1);
    expect((await refresh(h, T, r.state!)).state!.thumbnail).toBeNull();
  });

  it("imports by client id without the secret, drops a deleted client with a warning, and deletes", async () => {
    const state = await create(h, T, base);
    expect((await importState(h, T, state.id as string)).state).toEqual({ ...state, secret: null });
    expect(await destroy(h, T, state)).toEqual([]);
    await expect(h.client.getOAuthClient(state.id as string)).rejects.toMatchObject({ status: 404 });
    const read = await refresh(h, T, state);
    expect(read.state).toBeNull();
    expect(read.diagnostics[0]).toMatchObject({ severity: "warning" });
    expect(await destroy(h, T, state)).toEqual([]);
    expect((await importState(h, T, "nosuchclient")).diagnostics[0]).toMatchObject({ summary: "Cannot import non-existent remote object" });
  });

  it("refuses invalid values at validation, naming the attribute", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...base, label: "" }, "label"],
      [{ ...base, redirect_uri: "not a url" }, "redirect_uri"],
      [{ ...base, redirect_uri: "ftp://example.com/" }, "redirect_uri"],
      [{ ...base, thumbnail: "not base64!" }, "thumbnail"],
      [{ ...base, thumbnail: Buffer.from("plain text").toString("base64") }, "thumbnail"],
    ];
    for (const [values, attribute] of cases) {
      expect(await validate(h, T, values)).toEqual([expect.objectContaining({ severity: "error", attribute: [{ attribute }] })]);
    }
  });
});
