/**
 * live-imports.ts in a new repository: the stack's import blocks only for objects the account still
 * has. An import is an adoption, applied once; afterwards the declaration alone keeps the object. A
 * block naming an object that is gone (after `npm run destroy`, in a new account, in the tests'
 * throwaway API) would fail every plan with "Cannot import non-existent remote object", so the stack
 * leaves it out and the plan creates the object instead, visibly. A record of applied imports would
 * need a commit after every deploy, wherever deploys run; asking the API needs nothing.
 */
import { cdkModule } from "./cdk";
import type { ScaffoldContext } from "./context";

/**
 * The API path that shows one object of each adoptable type, by its import id (test/cli/init.test.ts
 * holds it to the types `mgmt drift --unmanaged` lists). Singletons always exist: their imports stay.
 */
export const OBJECT_PATHS: Record<string, string> = {
  mgmt_ssh_key: "/profile/sshkeys/",
  mgmt_token: "/profile/tokens/",
  mgmt_oauth_client: "/account/oauth-clients/",
  mgmt_tag: "/tags/",
};

export function liveImportsTs(c: ScaffoldContext): string {
  return `/**
 * Written by \`mgmt init\`. Import blocks (\`.importFrom(id)\`, as \`mgmt drift --import-out\` writes them) only
 * for objects the account at MGMT_URL still has. An import adopts an object once; from then on its
 * declaration keeps it. After \`npm run destroy\`, in a new account or in the tests' throwaway API the
 * object is gone, and its import block would fail every plan ("Cannot import non-existent remote
 * object"): it is left out, said so on stderr, and the plan creates the object instead.
 *
 * Imports stay as written when nothing can be asked: no MGMT_URL, a child account (the objects
 * are not the token's own), or an API that does not answer as this one. The check reads the
 * settings the provider reads when its block sets neither url nor token, as main.ts's does.
 */
import { execFileSync } from "node:child_process";
import { TerraformProvider, TerraformResource } from "${cdkModule(c)}";
import type { Construct } from "constructs";

/** Where the API shows one object of each type an import can name, by its import id. */
const OBJECT_PATHS: Record<string, string> = ${JSON.stringify(OBJECT_PATHS, null, 2)};

/** GETs each path (argv: base URL, then the paths) and prints their statuses as JSON; 0 when it could not ask. */
const PROBE = \`
const [base, ...paths] = process.argv.slice(1);
const get = (path) =>
  fetch(base + path, { headers: { authorization: "Bearer " + (process.env.MGMT_TOKEN || "") }, signal: AbortSignal.timeout(15000) }).then(
    (r) => r.status,
    () => 0,
  );
Promise.all(paths.map(get)).then((statuses) => process.stdout.write(JSON.stringify(statuses)));
\`;

/**
 * The id a resource's \`.importFrom(id)\` set, if any. ${cdkModule(c)} keeps it in a private field and offers no way
 * to read or drop it, so it is reached by name and checked for the shape it has there.
 */
function importedId(resource: TerraformResource): string | undefined {
  const imported: unknown = Reflect.get(resource, "_imported");
  return typeof imported === "object" && imported !== null && "id" in imported && typeof imported.id === "string" ? imported.id : undefined;
}

export function importOnlyWhatExists(scope: Construct): void {
  const imports = scope.node
    .findAll()
    .filter((c): c is TerraformResource => c instanceof TerraformResource)
    .map((resource) => ({ resource, id: importedId(resource) }))
    .filter((i): i is { resource: TerraformResource; id: string } => typeof i.id === "string" && i.resource.terraformResourceType in OBJECT_PATHS);
  const url = process.env.MGMT_URL?.replace(/\\/+$/, "");
  if (imports.length === 0 || !url || process.env.MGMT_CHILD_ACCOUNT_EUUID) return;
  const providers = scope.node.findAll().filter((c): c is TerraformProvider => c instanceof TerraformProvider);
  if (providers.some((p) => JSON.stringify(p.toTerraform()).includes("child_account"))) return;
  const paths = imports.map(({ resource, id }) => OBJECT_PATHS[resource.terraformResourceType] + encodeURIComponent(id));
  // The profile first: only an API that answers it as this one does, with this token, is asked about the rest.
  const statuses = JSON.parse(execFileSync(process.execPath, ["-e", PROBE, url, "/profile", ...paths], { encoding: "utf8" })) as number[];
  if (statuses[0] !== 200) {
    process.stderr.write(\`live-imports: \${url}/profile answered \${statuses[0] || "nothing"}: the imports stay as written\\n\`);
    return;
  }
  imports.forEach(({ resource, id }, i) => {
    if (statuses[i + 1] !== 404) return;
    Reflect.set(resource, "_imported", undefined);
    process.stderr.write(\`live-imports: \${resource.terraformResourceType}.\${resource.friendlyUniqueId}: \${id} is not in the account, so it is created, not imported\\n\`);
  });
}
`;
}
