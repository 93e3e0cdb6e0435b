/**
 * The synth-time check that travels with the imports `mgmt drift --import-out FILE.ts` writes: the
 * text of `keepOnlyAdopted(scope, adopted)`, appended to every module drift writes (and to the
 * scaffold's live-imports.ts, for imports written before identities were recorded), so that a stack
 * calling `importUnmanaged(this)` gets it without another line. It needs only node and constructs,
 * so it works with cdktf's bindings and cdktn's alike. Laid out as prettier lays it out.
 *
 * It asks the API for each adopted type's list (every page, 500 a page: a bounded number of requests
 * for any number of imports), in a child node process because synth is synchronous.
 */
/** The module's imports the check needs, beside its own. */
export const ADOPTION_CHECK_IMPORTS = ['import { execFileSync } from "node:child_process";', 'import { createHash } from "node:crypto";'];

/** The check's code (prettier's layout, default options). */
export const ADOPTION_CHECK = String.raw`// The check below travels with the imports (it is the same in every module mgmt drift writes): at
// synth, an import is kept only when the live object with its id is the object that was adopted.
// Ids are small sequential numbers, so in another account (or after a destroy) the same id can be
// a stranger's object, which an import would hand to this stack and its next plan would replace.
interface Adopted {
  readonly construct: string;
  readonly type: string;
  readonly id: string;
  /** What makes the object that object for its type (a key's fingerprint and label, a token's label, scopes and creation). */
  readonly identity: Readonly<Record<string, string>>;
}

/** Where the API lists each type's objects, and which of an object's fields is its import id. */
const LISTS: Readonly<
  Record<string, { readonly path: string; readonly id: string }>
> = {
  mgmt_ssh_key: { path: "/profile/sshkeys", id: "id" },
  mgmt_token: { path: "/profile/tokens", id: "id" },
  mgmt_oauth_client: { path: "/account/oauth-clients", id: "id" },
  mgmt_tag: { path: "/tags", id: "label" },
};

/** Run by node (argv: base URL, then the paths): every page of each list, printed as {"lists": [...]} or {"error": "..."}. */
const LIST_ALL = [
  "const [base, ...paths] = process.argv.slice(1);",
  'const headers = { authorization: "Bearer " + (process.env.MGMT_TOKEN || "") };',
  "async function list(path) {",
  "  const all = [];",
  "  for (let page = 1; ; page++) {",
  "    let r;",
  "    try {",
  '      r = await fetch(base + path + "?page_size=500&page=" + page, { headers, signal: AbortSignal.timeout(30000) });',
  "    } catch (e) {",
  '      throw new Error("GET " + path + " got no answer (" + (e && e.name === "TimeoutError" ? "timed out after 30 s" : String(e && e.message)) + ")");',
  "    }",
  '    if (r.status !== 200) throw new Error("GET " + path + " answered " + r.status);',
  "    const body = await r.json().catch(() => undefined);",
  '    if (!body || !Array.isArray(body.data)) throw new Error("GET " + path + " answered something other than a list");',
  "    all.push(...body.data);",
  "    if (page >= (body.pages || 1)) return all;",
  "  }",
  "}",
  "Promise.all(paths.map(list)).then(",
  "  (lists) => process.stdout.write(JSON.stringify({ lists })),",
  "  (e) => process.stdout.write(JSON.stringify({ error: e.message })),",
  ");",
].join("\n");

/** OpenSSH's SHA256 fingerprint of a public key line. */
function fingerprint(publicKey: string): string {
  const blob = publicKey.trim().split(/\s+/)[1] ?? "";
  return (
    "SHA256:" +
    createHash("sha256")
      .update(Buffer.from(blob, "base64"))
      .digest("base64")
      .replace(/=+$/, "")
  );
}

/** A live object's identity, as drift recorded it for the adopted one. */
function identityOf(
  type: string,
  live: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const text = (v: unknown) => (typeof v === "string" ? v : String(v));
  if (type === "mgmt_ssh_key")
    return {
      label: text(live.label),
      fingerprint: fingerprint(text(live.ssh_key)),
    };
  if (type === "mgmt_token")
    return {
      label: text(live.label),
      scopes: text(live.scopes),
      created: text(live.created).replace(/Z$/, ""),
    };
  if (type === "mgmt_oauth_client")
    return { label: text(live.label), redirect_uri: text(live.redirect_uri) };
  return { label: text(live.label) };
}

/**
 * Drops the import of each construct whose id names another object than the adopted one (or none),
 * saying so on stderr: the plan then creates the object. Unchecked when nothing can be asked (no
 * MGMT_URL, or a child account, whose objects the token's own lists do not show); an answer that
 * cannot be read stops the synth rather than keep an import blindly.
 */
export function keepOnlyAdopted(
  scope: Construct,
  adopted: readonly Adopted[],
): void {
  const url = process.env.MGMT_URL?.replace(/\/+$/, "");
  if (adopted.length === 0 || !url || process.env.MGMT_CHILD_ACCOUNT_EUUID)
    return;
  const root = scope.node.root.node.findAll();
  // A provider acting in a child account: the objects are that account's, which the token's own lists do not show.
  const toTerraform = (c: object): unknown =>
    (Reflect.get(c, "toTerraform") as () => unknown).call(c);
  if (
    root.some(
      (c) =>
        "terraformProviderSource" in c &&
        JSON.stringify(toTerraform(c)).includes("child_account"),
    )
  )
    return;
  const types = [...new Set(adopted.map((a) => a.type))].filter(
    (t) => t in LISTS,
  );
  const answer = JSON.parse(
    execFileSync(
      process.execPath,
      ["-e", LIST_ALL, url, ...types.map((t) => LISTS[t]!.path)],
      { encoding: "utf8", maxBuffer: 1 << 28 },
    ),
  ) as { lists?: Record<string, unknown>[][]; error?: string };
  if (answer.lists === undefined) {
    throw new Error(
      "live-imports: cannot tell whether the " +
        adopted.length +
        " adopted objects are still the ones in the account at " +
        url +
        ": " +
        answer.error +
        ". Nothing is imported blindly: run the synth again once the API answers.",
    );
  }
  const live = new Map(
    types.map((t, i) => [
      t,
      new Map(answer.lists![i]!.map((o) => [String(o[LISTS[t]!.id]), o])),
    ]),
  );
  for (const a of adopted) {
    // The construct's id below scope, or its path ("Stack/key") from there.
    let resource: { readonly node: Construct["node"] } | undefined = scope;
    for (const id of a.construct.split("/"))
      resource = resource?.node.tryFindChild(id);
    if (resource === undefined || !(a.type in LISTS)) continue;
    const found = live.get(a.type)?.get(a.id);
    const seen = found === undefined ? undefined : identityOf(a.type, found);
    const differs =
      seen === undefined
        ? []
        : Object.keys(a.identity).filter((k) => seen[k] !== a.identity[k]);
    Reflect.set(resource, Symbol.for("mgmt.adoption-checked"), true);
    if (seen !== undefined && differs.length === 0) continue;
    Reflect.set(resource, "_imported", undefined);
    const why =
      seen === undefined
        ? "is not in the account"
        : "is another object (its " +
          differs.join(" and ") +
          (differs.length === 1 ? " differs" : " differ") +
          " from the adopted one's)";
    process.stderr.write(
      "live-imports: " +
        a.type +
        " " +
        JSON.stringify(a.id) +
        " (" +
        a.construct +
        ") " +
        why +
        ", so it is created, not imported\n",
    );
  }
}
`;
