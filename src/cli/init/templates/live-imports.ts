/**
 * live-imports.ts in a new repository: the stack's import blocks only for objects the account still
 * has. An import is an adoption, applied once; afterwards the declaration alone keeps the object. A
 * block naming an object that is gone (after `npm run destroy`, in a new account, in the tests'
 * throwaway API) would fail every plan with "Cannot import non-existent remote object", so the stack
 * leaves it out and the plan creates the object instead, visibly. Since ids are small sequential
 * numbers, an object with the id is not enough either: it must be the object adopted (the check is
 * src/report/adoption-check.ts, which drift's modules carry too). A record of applied imports would
 * need a commit after every deploy, wherever deploys run; asking the API needs nothing.
 */
import { ADOPTION_CHECK, ADOPTION_CHECK_IMPORTS } from "../../../report/adoption-check";
import { cdkModule } from "./cdk";
import type { ScaffoldContext } from "./context";

export function liveImportsTs(c: ScaffoldContext): string {
  return `/**
 * Written by \`mgmt init\`. Import blocks (\`.importFrom(id)\`) only for the objects they adopted. An import
 * adopts an object once; from then on its declaration keeps it. Ids are small sequential numbers: after
 * \`npm run destroy\`, in a new account or in the tests' throwaway API the id may name nothing, or another
 * object, which an import would hand to this stack to replace. Such an import is left out, said so on
 * stderr, and the plan creates the object instead.
 *
 * The module \`mgmt drift --import-out\` writes checks its own imports against the identity it recorded
 * (keepOnlyAdopted, below, is the same code). This file checks the others, written before drift recorded
 * identities, against what their declaration says (label, public key, scopes, redirect URI).
 * Unchecked when nothing can be asked: no MGMT_URL, or a child account. An answer that cannot be
 * read (a timeout, a 429, a 5xx) stops the synth.
 */
${ADOPTION_CHECK_IMPORTS.join("\n")}
import { TerraformResource } from "${cdkModule(c)}";
import type { Construct } from "constructs";

/** The id a resource's \`.importFrom(id)\` set, if any (${cdkModule(c)} keeps it in a private field, reached by name). */
function importedId(resource: TerraformResource): string | undefined {
  const imported: unknown = Reflect.get(resource, "_imported");
  return typeof imported === "object" && imported !== null && "id" in imported && typeof imported.id === "string" ? imported.id : undefined;
}

/** What a declaration says of the object it adopts, in the identity's terms. */
function declaredIdentity(resource: TerraformResource): Record<string, string> {
  const type = resource.terraformResourceType;
  const body = ((resource.toTerraform() as { resource?: Record<string, Record<string, Record<string, unknown>>> }).resource?.[type]?.[resource.friendlyUniqueId] ?? {});
  const identity: Record<string, string> = {};
  if (typeof body.label === "string") identity.label = body.label;
  if (type === "mgmt_ssh_key" && typeof body.ssh_key === "string") identity.fingerprint = fingerprint(body.ssh_key);
  if (type === "mgmt_token" && typeof body.scopes === "string") identity.scopes = body.scopes;
  if (type === "mgmt_oauth_client" && typeof body.redirect_uri === "string") identity.redirect_uri = body.redirect_uri;
  return identity;
}

export function importOnlyWhatExists(scope: Construct): void {
  const legacy = scope.node
    .findAll()
    .filter((r): r is TerraformResource => r instanceof TerraformResource && r.terraformResourceType in LISTS)
    .filter((r) => importedId(r) !== undefined && !Reflect.get(r, Symbol.for("mgmt.adoption-checked")))
    .map((r) => ({
      construct: r.node.path.slice(scope.node.path.length + 1),
      type: r.terraformResourceType,
      id: importedId(r)!,
      identity: declaredIdentity(r),
    }));
  keepOnlyAdopted(scope, legacy);
}
${ADOPTION_CHECK}`;
}
