/** @tier unit */
/**
 * A definition's value types come from its attribute declarations. The `@ts-expect-error` lines
 * are the proof: `npm run typecheck` (tsc over test/) fails if any of them stops being an error,
 * so a state mapping with a missing, undeclared or mistyped key cannot compile.
 */
import type { MgmtClient } from "../../src/client";
import type { OAuthClient } from "../../src/contract";
import { batchedReads } from "../../src/provider/batched-reads";
import type { ProviderContext } from "../../src/provider/config";
import { bool, int, string } from "../../src/provider/framework/attributes";
import { defineResource } from "../../src/provider/framework/resource";
import { Unknown, known } from "../../src/provider/framework/value";
import type { ConfigOf, PlannedOf, StateOf } from "../../src/provider/framework/value-types";
import { oauthClientsDataSource } from "../../src/provider/datasources/oauth-clients";
import { oauthClientFields, oauthClientResource } from "../../src/provider/resources/oauth-client/resource";
import { sshKeyCollection } from "../../src/provider/resources/ssh-key/collection";
import { sshKeyResource } from "../../src/provider/resources/ssh-key/resource";

const attributes = {
  id: string("computed", "Id."),
  label: string("required", "Label."),
  size: int("optional", "Size."),
  public: bool("optional_computed", "Public.", { default: false }),
};
type State = StateOf<typeof attributes>;
type Planned = PlannedOf<typeof attributes>;

/** Exactly the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>): boolean => proof;

const good: State = { id: "1", label: "a", size: null, public: false };
// @ts-expect-error a declared key is missing
const missing: State = { id: "1", label: "a", size: null };
// @ts-expect-error a key the declaration does not have
const undeclared: State = { id: "1", label: "a", size: null, public: false, colour: "red" };
// @ts-expect-error a value of another type than declared
const mistyped: State = { id: "1", label: 3, size: null, public: false };
// @ts-expect-error a required attribute is never null in state
const nullRequired: State = { id: "1", label: null, size: null, public: false };
// @ts-expect-error a state is wholly known
const unknownInState: State = { id: Unknown, label: "a", size: null, public: false };

describe("typed state", () => {
  it("types each attribute by its builder and mode", () => {
    expect(same<State["label"], string>(true)).toBe(true);
    expect(same<State["size"], number | null>(true)).toBe(true);
    // What the provider computes may be unknown in a plan; what the configuration sets may not.
    expect(same<Planned["id"], string | null | typeof Unknown>(true)).toBe(true);
    expect(same<Planned["label"], string>(true)).toBe(true);
    expect(same<Planned["size"], number | null>(true)).toBe(true);
    expect(same<ConfigOf<typeof attributes>["label"], string | null | typeof Unknown>(true)).toBe(true);
    expect([good, missing, undeclared, mistyped, nullRequired, unknownInState].map((s) => Object.keys(s).length)).toEqual([4, 3, 5, 4, 4, 4]);
  });

  it("checks what a resource's CRUD returns against its declaration", () => {
    const widget = defineResource<ProviderContext>()({
      typeName: "test_widget",
      description: "A widget.",
      importId: { description: "any", example: "1" },
      attributes,
      // @ts-expect-error create returns a state without `public`
      create: async (_op, planned) => ({ id: "1", label: planned.label, size: planned.size }),
      read: async (_op, state) => ({ ...state, label: state.label.toUpperCase() }),
      // @ts-expect-error `size` is a number, not a string
      update: async (_op, prior, planned) => ({ ...prior, size: String(planned.size) }),
      delete: async () => {},
      importState: async () => null,
    });
    expect(Object.keys(widget.attributes)).toEqual(["id", "label", "size", "public"]);
  });

  it("reads typed values from a plan without naming the attribute in a string", () => {
    const planned: Planned = { id: Unknown, label: "a", size: 3, public: Unknown };
    const label: string = planned.label;
    // @ts-expect-error `size` may be null
    const size: number = planned.size;
    expect([label, size, known(planned.id), known(planned.size)]).toEqual(["a", 3, undefined, 3]);
  });

  it("gives the real resources' states exactly their declared keys", () => {
    type Keys<A> = keyof A & string;
    expect(same<Keys<StateOf<typeof oauthClientResource.attributes>>, Keys<typeof oauthClientResource.attributes>>(true)).toBe(true);
    expect(same<Keys<StateOf<typeof sshKeyResource.attributes>>, Keys<typeof sshKeyResource.attributes>>(true)).toBe(true);
  });

  it("shows an OAuth client in the data source exactly as the resource's state has it", () => {
    const client: OAuthClient = {
      id: "abc",
      label: "app",
      public: true,
      redirect_uri: "https://example.com/cb",
      secret: "s",
      status: "active",
      thumbnail_url: null,
    };
    const fields = oauthClientFields(client);
    const items = oauthClientsDataSource.attributes.oauth_clients!.nested!;
    expect(Object.keys(items).sort()).toEqual(Object.keys(fields).sort());
    for (const name of Object.keys(fields)) expect(Object.keys(oauthClientResource.attributes)).toContain(name);
  });

  it("describes each OAuth client field in the data source as the resource does", () => {
    const items = oauthClientsDataSource.attributes.oauth_clients!.nested!;
    const resource = oauthClientResource.attributes as Record<string, { description: string }>;
    for (const [name, item] of Object.entries(items))
      expect({ name, resource: resource[name]!.description.startsWith(item.description) }).toEqual({ name, resource: true });
  });

  it("leaves dropping a batched-read snapshot to the framework", () => {
    const reads = batchedReads({} as MgmtClient, true, () => new Date());
    // @ts-expect-error resources read snapshots; only `written` (the provider server's) drops them
    expect(() => reads.of(sshKeyCollection).invalidate()).not.toThrow();
    // @ts-expect-error likewise for tags
    expect(() => reads.mgmt_tag.invalidate()).not.toThrow();
    expect(typeof reads.written).toBe("function");
  });
});
