/** @tier unit */
/**
 * A managed type lives in one folder and one registry line, and docs/architecture.md's "Add a
 * resource" says so: this holds the registry, the folders, the consumers of each collection and the
 * recipe's list of places to one another.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UNMANAGED_TYPES } from "../../src/cli/unmanaged-types";
import { providerDefinition } from "../../src/provider";
import { MANAGED_TYPES } from "../../src/provider/resources";
import { ADOPTION_CHECK } from "../../src/report/adoption-check";

const root = join(__dirname, "../..");
const RESOURCES = "src/provider/resources";
const folderOf = (typeName: string) => typeName.replace(/^mgmt_/, "").replaceAll("_", "-");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Every .ts file under a folder of the repository, as repository paths. */
function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((e) => {
    const path = `${folder}/${e.name}`;
    return e.isDirectory() ? sources(path) : e.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the managed-type registry", () => {
  it("is what the provider serves", () => {
    expect(providerDefinition({}).resources.map((r) => r.typeName)).toEqual(MANAGED_TYPES.map((t) => t.resource.typeName));
  });

  it.each(MANAGED_TYPES.map((t) => [t.resource.typeName, t] as const))("has %s from its own folder", async (typeName, t) => {
    const folder = `${RESOURCES}/${folderOf(typeName)}`;
    const resourceModule: Record<string, unknown> = await import(join(root, folder, "resource"));
    expect(Object.values(resourceModule)).toContain(t.resource);
    expect({ typeName, collectionFile: existsSync(join(root, folder, "collection.ts")) }).toEqual({ typeName, collectionFile: t.collection !== undefined });
    if (t.collection) {
      const collectionModule: Record<string, unknown> = await import(join(root, folder, "collection"));
      expect(Object.values(collectionModule)).toContain(t.collection);
      expect(t.collection.typeName).toBe(typeName);
    }
  });

  it("holds every type folder under src/provider/resources", () => {
    const folders = readdirSync(join(root, RESOURCES), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.sort()).toEqual(MANAGED_TYPES.map((t) => folderOf(t.resource.typeName)).sort());
  });
});

describe("each collection, declared once", () => {
  const withCollection = MANAGED_TYPES.flatMap((t) => (t.collection ? [[t.resource.typeName, t.collection] as const] : []));

  // The client methods a collection's `list` and `get` call are that collection's knowledge: no
  // batched reader, create-once search, data source or command outside the type's folder names them.
  it.each(withCollection)("%s: its list and fetch-one calls are made only in its folder", (typeName) => {
    const folder = `${RESOURCES}/${folderOf(typeName)}/`;
    const declared = read(`${folder}collection.ts`);
    const calls = [...declared.matchAll(/^\s*(?:list|get): \([^)]*\) => client\.(\w+)\(/gm)].map((m) => m[1]!);
    expect(calls.length).toBeGreaterThan(0);
    const elsewhere = sources("src").filter(
      (path) =>
        !path.startsWith(folder) &&
        !path.startsWith("src/server/") &&
        path !== "src/client/index.ts" &&
        calls.some((c) => new RegExp(`\\.${c}\\(`).test(read(path))),
    );
    expect({ typeName, calls, elsewhere }).toEqual({ typeName, calls, elsewhere: [] });
  });

  it("is what drift's unmanaged search lists, tokens first, and singletons not at all", () => {
    expect(UNMANAGED_TYPES.map((t) => t.type).sort()).toEqual(withCollection.map(([typeName]) => typeName).sort());
    expect(UNMANAGED_TYPES[0]!.type).toBe("mgmt_token");
    for (const [typeName, c] of withCollection) expect(UNMANAGED_TYPES.find((t) => t.type === typeName)!.title).toBe(c.title);
  });

  it.each(withCollection)("%s: the adoption check written into a stack lists it where the collection does", (typeName, c) => {
    expect(ADOPTION_CHECK).toContain(`\n  ${typeName}: { path: "${c.path}", id: "${c.stateKey}" },`);
  });

  it.each(withCollection)("%s: reads a key back from state as the collection keys its objects", (typeName, c) => {
    const unmanaged = UNMANAGED_TYPES.find((t) => t.type === typeName)!;
    expect(unmanaged.stateId({ [c.stateKey]: "k-1", ...(c.stateKey === "id" ? {} : { id: "other" }) })).toBe("k-1");
  });
});

describe('docs/architecture.md, "Add a resource"', () => {
  const doc = read("docs/architecture.md");
  const section = doc.slice(doc.indexOf("### Add a resource\n"), doc.indexOf("### Add a data source"));
  const named = [...new Set([...section.matchAll(/`(src\/[^`\s]+)`/g)].map((m) => m[1]!))];

  it("names, under src/, the places a type is added in, and each exists for every registered type", () => {
    // The type's folder and its files, the registry, the collection's shape, and the check drift writes into stacks.
    const places = named.filter((p) => p.includes("<type>") || p === `${RESOURCES}/index.ts` || p === "src/report/adoption-check.ts");
    expect(places.sort()).toEqual(
      [
        `${RESOURCES}/<type>/`,
        `${RESOURCES}/<type>/resource.ts`,
        `${RESOURCES}/<type>/collection.ts`,
        `${RESOURCES}/index.ts`,
        "src/report/adoption-check.ts",
      ].sort(),
    );
    for (const t of MANAGED_TYPES) {
      const files = places.filter((p) => p.includes("<type>")).map((p) => p.replace("<type>", folderOf(t.resource.typeName)));
      for (const file of files.filter((f) => !f.endsWith("collection.ts") || t.collection))
        expect({ type: t.resource.typeName, file, exists: existsSync(join(root, file)) }).toEqual({ type: t.resource.typeName, file, exists: true });
    }
  });

  it("names only files that exist, besides the type's own", () => {
    for (const path of named.filter((p) => !p.includes("<")))
      expect({ path, exists: existsSync(join(root, path.replace(/\/$/, ""))) }).toEqual({ path, exists: true });
  });

  it("names the registry by the name the code gives it", () => {
    expect(section).toContain("`MANAGED_TYPES` (`src/provider/resources/index.ts`)");
    expect(read(`${RESOURCES}/index.ts`)).toMatch(/export const MANAGED_TYPES\b/);
  });
});
