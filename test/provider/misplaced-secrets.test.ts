/** @tier unit */
/**
 * A secret typed where it does not belong (a private key for a public one, a token or client
 * secret for a label) is refused at validate with a diagnostic that has no attribute path (the
 * engines print the configuration line a pathed one points at) and never quotes the value.
 */
import { createProvider } from "../../src/provider";
import { string } from "../../src/provider/framework/attributes";
import { planChange, secretsMisplaced, validateAttributes } from "../../src/provider/framework/lifecycle";
import { defineResource } from "../../src/provider/framework/resource";
import type { SecretCheck } from "../../src/provider/framework/validators";
import type { Diagnostic } from "../../src/provider/framework/diagnostics";
import type { ObjectValue, TfValue } from "../../src/provider/framework/value";
import { cryptoSecrets } from "../../src/server/clock";
import { PRIVATE_KEY_FORMATS, markers, privateKey } from "../support/private-keys";
import { sshKeyText } from "../../testkit/ssh-keys";

const provider = createProvider({ env: {} });

function config(typeName: string, values: Record<string, TfValue>): ObjectValue {
  const names = Object.keys(provider.schemas().resources[typeName]!.block.attributes ?? {});
  return Object.fromEntries(names.map((n) => [n, values[n] ?? null]));
}
const validate = async (typeName: string, values: Record<string, TfValue>): Promise<readonly Diagnostic[]> =>
  (await provider.validateResourceConfig(typeName, config(typeName, values))).diagnostics;

/** Every diagnostic is path-less, and none carries any part of the secret's body. */
function expectSilent(diags: readonly Diagnostic[], secret: string): void {
  for (const d of diags) {
    expect(d.attribute).toBeUndefined();
    for (const m of markers(secret)) expect(`${d.summary}\n${d.detail}`).not.toContain(m);
    expect(`${d.summary}\n${d.detail}`).not.toContain(secret.trim().slice(-80, -40));
  }
}

describe.each(PRIVATE_KEY_FORMATS)("a %s private key", (format) => {
  const key = privateKey(format);

  test("in mgmt_ssh_key.ssh_key: one path-less error that says private key and .pub", async () => {
    const diags = await validate("mgmt_ssh_key", { label: "builder", ssh_key: key });
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ severity: "error", summary: "Invalid ssh_key: a secret" });
    expect(diags[0]!.detail).toMatch(/^mgmt_ssh_key\.ssh_key: this is an? .*private key.*\.pub file/);
    expectSilent(diags, key);
  });

  test("in mgmt_profile_settings.authorized_keys: names the element, without a path", async () => {
    const diags = await validate("mgmt_profile_settings", { authorized_keys: [sshKeyText("ed25519"), key] });
    expect(diags).toHaveLength(1);
    expect(diags[0]!.detail).toMatch(/^mgmt_profile_settings\.authorized_keys \(element 2\): this is an? .*private key/);
    expectSilent(diags, key);
  });

  test("in a label: refused as a secret, not as a label too long (which would be pathed)", async () => {
    const diags = await validate("mgmt_ssh_key", { label: key, ssh_key: sshKeyText("ed25519") });
    expect(diags.map((d) => d.summary)).toEqual(["Invalid label: a secret"]);
    expectSilent(diags, key);
  });

  test.each(["ssh_key_fingerprint", "ssh_key_normalize"])("given to %s: an error that says private key, without the key", async (name) => {
    const answer = await provider.callFunction(name, [key]);
    expect(answer).toMatchObject({ error: { argument: 0 } });
    const text = "error" in answer ? answer.error.text : "";
    expect(text).toMatch(/private key.*\.pub file/);
    for (const m of markers(key)) expect(text).not.toContain(m);
  });
});

describe("a token or OAuth client secret, as the API mints them, typed as a label", () => {
  const minted = [cryptoSecrets.token(), cryptoSecrets.hex(32)];

  test.each([
    ["mgmt_token", { label: minted[0]!, scopes: "*" }],
    ["mgmt_token", { label: `Bearer ${minted[0]!}`, scopes: "*" }],
    ["mgmt_oauth_client", { label: minted[1]!, redirect_uri: "https://example.com/cb" }],
    ["mgmt_ssh_key", { label: minted[1]!, ssh_key: sshKeyText("ed25519") }],
  ] as const)("%s: a path-less error that never repeats the value", async (typeName, values) => {
    const diags = await validate(typeName, values);
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({ severity: "error", summary: "Invalid label: a secret" });
    expect(diags[0]!.attribute).toBeUndefined();
    expect(diags[0]!.detail).toMatch(/looks like an API token or OAuth client secret/);
    expect(diags[0]!.detail).not.toContain(values.label.replace("Bearer ", "").slice(0, 16));
  });

  test.each([
    "deploy bot",
    "ci-runner 2026-11-28",
    "0".repeat(64),
    "deadbeef".repeat(8),
    "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b", // 63 characters
    "release 3f2a9c1e7b4d6a8f0e2c4b6d8f1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a", // a digest within a longer name
    "A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6E7F8A9B0C1D2E3F4A5B6C7D8E9F0A1B2", // upper case: not how the API mints them
  ])("an ordinary label is no secret: %j", async (label) => {
    expect(await validate("mgmt_token", { label, scopes: "*" })).toEqual([]);
  });
});

test("a public key is still taken, and a malformed one still refused on its path", async () => {
  expect(await validate("mgmt_ssh_key", { label: "k", ssh_key: sshKeyText("rsa") })).toEqual([]);
  const diags = await validate("mgmt_ssh_key", { label: "k", ssh_key: "ssh-foo AAAA" });
  expect(diags).toMatchObject([{ summary: "Invalid ssh_key", attribute: [{ attribute: "ssh_key" }] }]);
});

test("a secret known only at plan is refused there, without a path, before any diff can show it", async () => {
  const key = privateKey("pem-ec");
  for (const [typeName, values] of [
    ["mgmt_ssh_key", { label: "k", ssh_key: key }],
    ["mgmt_token", { label: cryptoSecrets.token(), scopes: "*" }],
    ["mgmt_oauth_client", { label: cryptoSecrets.hex(32), redirect_uri: "https://example.com/cb" }],
    ["mgmt_profile_settings", { authorized_keys: [key] }],
  ] as const) {
    const c = config(typeName, values);
    const plan = await provider.planResourceChange(typeName, { priorState: null, proposedNewState: c, config: c });
    expect(plan.diagnostics.map((d) => [d.severity, d.summary, d.attribute])).toEqual([
      [
        "error",
        { mgmt_ssh_key: "Invalid ssh_key: a secret", mgmt_profile_settings: "Invalid authorized_keys: a secret" }[typeName as string] ??
          "Invalid label: a secret",
        undefined,
      ],
    ]);
    for (const m of markers(key)) expect(JSON.stringify(plan.diagnostics)).not.toContain(m);
  }
});

describe("the framework's rule: an attribute declared with `secret`", () => {
  const secret: SecretCheck = (v) => (v.startsWith("SECRET") ? "this is a secret" : undefined);
  const seen: string[] = [];
  const note = string("required", "A name.", {
    secret,
    validate: (v) => {
      seen.push(v);
      return v.length > 10 ? "too long" : undefined;
    },
  });
  const def = defineResource<unknown>()({
    typeName: "demo_thing",
    description: "A resource with no secret hooks of its own.",
    importId: { description: "the id", example: "1" },
    attributes: { note },
    create: async () => ({ note: "" }),
    read: async () => null,
    update: async () => ({ note: "" }),
    delete: async () => undefined,
    importState: async () => null,
  });

  test("skips its validators on a secret and refuses it without a path, at validate and at plan", () => {
    const value = { note: "SECRET-abcdefghijkl" };
    expect(validateAttributes(def.attributes, value)).toEqual([]);
    expect(seen).not.toContain(value.note);
    const refused = { severity: "error", summary: "Invalid note: a secret", detail: expect.stringMatching(/^demo_thing\.note: this is a secret\./) };
    expect(secretsMisplaced(def.typeName, def.attributes, value)).toEqual([expect.objectContaining(refused)]);
    const planned = planChange(def, null, value, value, new Date());
    expect(planned.diagnostics).toEqual([expect.objectContaining(refused)]);
    expect(planned.diagnostics[0]!.attribute).toBeUndefined();
  });

  test("leaves other values to its validators, on the attribute's path", () => {
    expect(validateAttributes(def.attributes, { note: "far too long a name" })).toEqual([
      expect.objectContaining({ summary: "Invalid note", attribute: [{ attribute: "note" }] }),
    ]);
    expect(secretsMisplaced(def.typeName, def.attributes, { note: "fine" })).toEqual([]);
  });
});
