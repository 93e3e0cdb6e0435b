/** @tier unit */
/**
 * Each managed type's contract shapes, walked field by field against the layers that must carry
 * them: the view `mgmt serve` answers, the resource's state (and its configurable attributes for
 * what a create or update sends), and the client's search for an object a lost create answer
 * made. Nothing here names a field: a field the contract gains and a layer lacks fails, named.
 */
import type { z } from "zod";
import { sameOAuthClientRequest } from "../../src/provider/resources/oauth-client/collection";
import {
  AccountUpdate,
  OAuthClient,
  OAuthClientCreate,
  OAuthClientUpdate,
  PersonalAccessToken,
  ProfileUpdate,
  SshKey,
  SshKeyCreate,
  Tag,
  TagCreate,
  TokenCreate,
  TokenUpdate,
} from "../../src/contract";
import type { ResourceDefinition } from "../../src/provider/framework/resource";
import { MANAGED_TYPES } from "../../src/provider/resources";
import { accountContactResource } from "../../src/provider/resources/account-contact/resource";
import { oauthClientResource } from "../../src/provider/resources/oauth-client/resource";
import { profileSettingsResource } from "../../src/provider/resources/profile-settings/resource";
import { sshKeyResource } from "../../src/provider/resources/ssh-key/resource";
import { tagResource } from "../../src/provider/resources/tag/resource";
import { tokenResource } from "../../src/provider/resources/token/resource";
import { sshKeyText } from "../../testkit/ssh-keys";
import { startHarness, type Harness } from "./harness";

type Shape = z.ZodObject<z.ZodRawShape>;

interface Managed {
  /** What this test reads of a resource: every typed definition is one, whatever its context and attributes. */
  readonly resource: Pick<ResourceDefinition<unknown>, "typeName" | "attributes">;
  /** The object as the API shows it, and where `mgmt serve` shows one (made for the test). */
  readonly view?: {
    readonly shape: Shape;
    path(h: Harness): Promise<string>;
    /** The object in the answer, when the answer is a page of them. */
    pick?(answer: { readonly data: readonly Record<string, unknown>[] }): Record<string, unknown> | undefined;
  };
  /** Bodies whose every field the configuration sets. */
  readonly bodies: readonly Shape[];
}

const MANAGED: readonly Managed[] = [
  {
    resource: oauthClientResource,
    view: {
      shape: OAuthClient,
      path: async (h) => `/account/oauth-clients/${(await h.client.createOAuthClient({ label: "layers", redirect_uri: "https://example.com/cb" })).id}`,
    },
    bodies: [OAuthClientCreate, OAuthClientUpdate],
  },
  {
    resource: sshKeyResource,
    view: { shape: SshKey, path: async (h) => `/profile/sshkeys/${(await h.client.createSshKey({ label: "layers", ssh_key: sshKeyText("ed25519") })).id}` },
    bodies: [SshKeyCreate],
  },
  {
    resource: tokenResource,
    view: { shape: PersonalAccessToken, path: async (h) => `/profile/tokens/${(await h.client.createToken({ label: "layers" })).id}` },
    bodies: [TokenCreate, TokenUpdate],
  },
  {
    resource: tagResource,
    view: {
      shape: Tag,
      path: async (h) => (await h.client.createTag({ label: "layers" }), "/tags"),
      pick: (answer) => answer.data.find((t) => t.label === "layers"),
    },
    bodies: [TagCreate],
  },
  { resource: accountContactResource, bodies: [AccountUpdate] },
  { resource: profileSettingsResource, bodies: [ProfileUpdate] },
];

const fieldsOf = (shape: Shape) => Object.keys(shape.shape);

/** "field (layer)" for each field of the shape the layer lacks. */
const lacking = (shape: Shape, layer: string, has: (field: string) => boolean) =>
  fieldsOf(shape).flatMap((field) => (has(field) ? [] : [`${field} (${layer})`]));

it("has a row for every managed type the provider registers", () => {
  expect(MANAGED.map((m) => m.resource.typeName).sort()).toEqual(MANAGED_TYPES.map((t) => t.resource.typeName).sort());
});

describe("contract fields reach every layer", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  describe.each(MANAGED.map((m) => [m.resource.typeName, m] as const))("%s", (typeName, m) => {
    const attributes = m.resource.attributes;

    if (m.view) {
      const view = m.view;
      it("the server's view has every field of the contract's view", async () => {
        const path = await view.path(h);
        const answer = await fetch(`${h.server.url}${path}`, { headers: { authorization: `Bearer ${h.server.token}` } });
        expect(answer.status).toBe(200);
        const body: unknown = await answer.json();
        const shown = view.pick ? view.pick(body as { data: Record<string, unknown>[] }) : (body as Record<string, unknown>);
        expect(shown).toBeDefined();
        expect(lacking(view.shape, `server view of ${path}`, (f) => f in shown!)).toEqual([]);
      });

      it("the provider's state has every field of the contract's view", () => {
        expect(lacking(view.shape, `${typeName} state`, (f) => f in attributes)).toEqual([]);
      });
    }

    it("the configuration sets every field of the contract's create and update bodies", () => {
      const configurable = (f: string) => f in attributes && attributes[f]!.mode !== "computed";
      expect(m.bodies.flatMap((body) => lacking(body, `${typeName} configurable attribute`, configurable))).toEqual([]);
    });
  });

  it("a lost OAuth client create adopts only a client equal in every field of the create body", () => {
    const body = { label: "app", redirect_uri: "https://example.com/cb", public: true };
    const live: OAuthClient = { id: "abc", secret: "s", status: "active", thumbnail_url: null, ...body };
    expect(sameOAuthClientRequest(live, body)).toBe(true);
    const unnoticed = fieldsOf(OAuthClientCreate).filter((field) => {
      const other = { ...live, [field]: typeof (live as Record<string, unknown>)[field] === "boolean" ? !(live as Record<string, unknown>)[field] : "other" };
      return sameOAuthClientRequest(other as OAuthClient, body);
    });
    expect(unnoticed.map((field) => `${field} (client create search)`)).toEqual([]);
  });
});
