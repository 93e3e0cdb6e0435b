/**
 * What `mgmt drift --unmanaged` needs per resource type: how to list the live objects (the API
 * calls, so this lives with the command, not in the pure report modules), which import id each
 * has, and how to read that id back from a state object. Every managed type with a collection
 * has an entry, made from the collection its folder declares (src/provider/resources/index.ts).
 *
 * Singletons (mgmt_account_contact, mgmt_profile_settings) have none on purpose: the object
 * always exists, so "not in state" means "not managed here", never "left behind".
 *
 * For code that imports them, `importedObjects` reads each object as the engine's import would
 * put it in state: through the provider itself, in process.
 */
import { listAll, type MgmtClient } from "../client";
import { BOOTSTRAP_TOKEN_LABEL, TOKEN_PREFIX_LENGTH, type PersonalAccessToken } from "../contract/tokens";
import { createProvider, providerDefinition } from "../provider";
import type { Diagnostic } from "../provider/framework/diagnostics";
import { MANAGED_TYPES } from "../provider/resources";
import type { Collection } from "../provider/resources/collection";
import { IMPORT_NOT_FOUND } from "../provider/framework/provider-server";
import type { ImportAttribute, ImportSubject } from "../report/import-cdktf";
import type { KnownRole, LiveObject, UnmanagedKind, UnmanagedObject } from "../report/unmanaged";

export interface ListContext {
  readonly client: MgmtClient;
  /** The token the run acts with, to recognise it in the token list (only its prefix is compared). */
  readonly actingToken: string;
}

export interface UnmanagedType extends UnmanagedKind {
  readonly list: (ctx: ListContext) => Promise<LiveObject[]>;
}

const idOf = (values: Record<string, unknown>) => (typeof values.id === "string" || typeof values.id === "number" ? String(values.id) : undefined);

export function tokenRole(token: { label: string; token: string }, actingToken: string): KnownRole | undefined {
  // The API shows a token's first TOKEN_PREFIX_LENGTH characters after creation; so does this comparison.
  if (actingToken.length >= TOKEN_PREFIX_LENGTH && token.token.slice(0, TOKEN_PREFIX_LENGTH) === actingToken.slice(0, TOKEN_PREFIX_LENGTH)) return "acting";
  if (BOOTSTRAP_TOKEN_LABEL.test(token.label)) return "bootstrap";
  return undefined;
}

/** Objects of a type the run expects to find unmanaged: its own token, the server's bootstrap token. */
const ROLES: Readonly<Record<string, (item: PersonalAccessToken, actingToken: string) => KnownRole | undefined>> = { mgmt_token: tokenRole };

/** Each managed type's collection as the search reads it: listed, and each object named by its key (its import id) and label. */
function unmanagedType(c: Collection<unknown>): UnmanagedType {
  const role = ROLES[c.typeName] as ((item: unknown, actingToken: string) => KnownRole | undefined) | undefined;
  return {
    type: c.typeName,
    title: c.title,
    stateId: (values) => {
      const key = values[c.stateKey];
      return typeof key === "string" ? key : idOf(values);
    },
    list: async ({ client, actingToken }) =>
      (await listAll(c.list(client))).map((item) => {
        const known = role?.(item, actingToken);
        return { importId: c.key(item), label: c.label(item), ...(known ? { role: known } : {}) };
      }),
  };
}

/** Tokens first: an unmanaged token is a live credential, the report's first concern. */
const TOKENS_FIRST = (t: UnmanagedType) => (t.type === "mgmt_token" ? 0 : 1);

export const UNMANAGED_TYPES: readonly UnmanagedType[] = MANAGED_TYPES.flatMap((t) => (t.collection ? [unmanagedType(t.collection)] : [])).sort(
  (a, b) => TOKENS_FIRST(a) - TOKENS_FIRST(b),
);

/** The first error among diagnostics, as one line of text. */
function firstError(diagnostics: readonly Diagnostic[]): string | undefined {
  const e = diagnostics.find((d) => d.severity === "error");
  return e && (e.detail ? `${e.summary}: ${e.detail}` : e.summary);
}

export interface ImportedObjects {
  readonly subjects: ImportSubject[];
  /** Listed, then deleted before it could be read: nothing is left to adopt. */
  readonly gone: UnmanagedObject[];
}

/**
 * Each object as `import` then `refresh` leave it in state (ImportResourceState, then
 * ReadResource, the provider's own code, configured from `env` as the engine configures it), with
 * the attributes its resource declares. An object gone since it was listed is left out and named
 * in `gone`; any other failure throws.
 */
export async function importedObjects(objects: readonly UnmanagedObject[], env: NodeJS.ProcessEnv): Promise<ImportedObjects> {
  const resources = new Map(providerDefinition(env).resources.map((r) => [r.typeName, r]));
  const provider = createProvider({ env });
  try {
    const configured = firstError((await provider.configure({})).diagnostics);
    if (configured) throw new Error(`cannot configure the provider: ${configured}`);
    const subjects: ImportSubject[] = [];
    const gone: UnmanagedObject[] = [];
    for (const o of objects) {
      const resource = resources.get(o.type);
      if (!resource) throw new Error(`the provider has no resource ${o.type}`);
      const imported = await provider.importResourceState(o.type, o.importId);
      if (imported.diagnostics.some((d) => d.severity === "error" && d.summary === IMPORT_NOT_FOUND)) {
        gone.push(o);
        continue;
      }
      const importFailure = firstError(imported.diagnostics);
      if (importFailure) throw new Error(`cannot import ${o.type} ${JSON.stringify(o.importId)}: ${importFailure}`);
      const [first] = imported.imported;
      if (!first) {
        gone.push(o);
        continue;
      }
      const read = await provider.readResource(o.type, first.state, first.private);
      const readFailure = firstError(read.diagnostics);
      if (readFailure) throw new Error(`cannot read ${o.type} ${JSON.stringify(o.importId)}: ${readFailure}`);
      if (read.newState === null) {
        gone.push(o);
        continue;
      }
      const attributes: ImportAttribute[] = Object.entries(resource.attributes).map(([name, spec]) => ({
        name,
        mode: spec.mode,
        type: spec.type,
        sensitive: spec.sensitive,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      }));
      subjects.push({ type: o.type, importId: o.importId, label: o.label, attributes, values: read.newState });
    }
    return { subjects, gone };
  } finally {
    await provider.close();
  }
}
