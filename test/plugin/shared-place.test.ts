/** @tier unit */
/**
 * Where plugin starts find their shared host (src/plugin/shared-place.ts): one name per build,
 * folder and environment, never longer than a socket address holds, and the messages the two
 * sides exchange on it.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTag, hostSocketPath, idleMs, messageReader, settingDifference, sharingEnabled } from "../../src/plugin/shared-place";

let bundles: string;
beforeAll(() => {
  bundles = mkdtempSync(join(tmpdir(), "mgmt-shared-place-"));
  writeFileSync(join(bundles, "plugin-main.js"), "// a build\n");
});
afterAll(() => rmSync(bundles, { recursive: true, force: true }));

describe("the host's name", () => {
  const cache = "/home/u/.cache/terraform-provider-mgmt";
  const setting = { env: { MGMT_URL: "http://127.0.0.1:8080/v4", MGMT_TOKEN: "t0ken-of-the-team", PLUGIN_CLIENT_CERT: "A" }, cwd: "/repo/stack" };

  it("is the same for one build and setting, whatever the start's own engine certificate and the order go-plugin lists the protocols in", () => {
    const path = hostSocketPath(cache, buildTag(bundles), { ...setting, env: { ...setting.env, PLUGIN_PROTOCOL_VERSIONS: "5,6" } })!;
    expect(hostSocketPath(cache, buildTag(bundles), { ...setting, env: { ...setting.env, PLUGIN_PROTOCOL_VERSIONS: "6,5" } })).toBe(path);
    expect(path).toMatch(/^\/home\/u\/\.cache\/terraform-provider-mgmt\/shared-[0-9a-f]{32}\.sock$/);
    expect(hostSocketPath(cache, buildTag(bundles), { ...setting, env: { ...setting.env, PLUGIN_CLIENT_CERT: "B" } })).toBe(path);
  });

  it("differs by build, folder, and any variable of the environment", () => {
    const build = buildTag(bundles);
    const path = hostSocketPath(cache, build, setting);
    expect(hostSocketPath(cache, build, { ...setting, cwd: "/repo/other" })).not.toBe(path);
    expect(hostSocketPath(cache, build, { ...setting, env: { ...setting.env, MGMT_TOKEN: "another" } })).not.toBe(path);
    expect(hostSocketPath(cache, build, { ...setting, env: { ...setting.env, TF_LOG: "debug" } })).not.toBe(path);
    // The bundle rewritten: another build.
    utimesSync(join(bundles, "plugin-main.js"), new Date(), new Date(Date.now() + 5000));
    expect(hostSocketPath(cache, buildTag(bundles), setting)).not.toBe(path);
  });

  it("says nothing of the token, and is refused when a socket address could not hold it", () => {
    const path = hostSocketPath(cache, "b", setting)!;
    expect(path).not.toContain("t0ken");
    expect(hostSocketPath("/tmp/" + "d".repeat(60), "b", setting)).toBeUndefined();
    expect(hostSocketPath("/tmp/" + "d".repeat(40), "b", setting)).toBeDefined();
  });

  it("is checked again when a start joins: the first setting that differs is named, never its value", () => {
    expect(settingDifference(setting, { ...setting, env: { ...setting.env, PLUGIN_CLIENT_CERT: "B" } })).toBeUndefined();
    expect(settingDifference(setting, { ...setting, env: { ...setting.env, MGMT_TOKEN: "another" } })).toBe("environment (MGMT_TOKEN)");
    expect(settingDifference(setting, { ...setting, env: { MGMT_URL: setting.env.MGMT_URL } })).toBe("environment (MGMT_TOKEN)");
    expect(settingDifference(setting, { ...setting, cwd: "/" })).toBe("working folder");
  });
});

it("is on unless MGMT_PLUGIN_SHARED turns it off, and never on Windows; a number is the host's wait in seconds", () => {
  expect(sharingEnabled({})).toBe(true);
  expect(sharingEnabled({ MGMT_PLUGIN_SHARED: "on" })).toBe(true);
  for (const off of ["0", "off", " OFF ", "false", "no"]) expect(sharingEnabled({ MGMT_PLUGIN_SHARED: off })).toBe(false);
  expect(sharingEnabled({}, "win32")).toBe(false);
  expect(idleMs({})).toBe(30_000);
  expect(idleMs({ MGMT_PLUGIN_SHARED: "yes" })).toBe(30_000);
  expect(idleMs({ MGMT_PLUGIN_SHARED: "2.5" })).toBe(2_500);
  expect(idleMs({ MGMT_PLUGIN_SHARED: "-1" })).toBe(30_000);
});

it("reads messages split across chunks, and stops at a line that is not one", () => {
  const got: unknown[] = [];
  const bad: string[] = [];
  const read = messageReader<unknown>(
    (m) => got.push(m),
    (l) => bad.push(l),
  );
  read(Buffer.from('{"line":"1|6|unix|/s|grpc"}\n{"lo'));
  read(Buffer.from('g":"a\\n"}\n'));
  expect(got).toEqual([{ line: "1|6|unix|/s|grpc" }, { log: "a\n" }]);
  read(Buffer.from('not json\n{"exit":0}\n'));
  expect(bad).toEqual(["not json"]);
  expect(got).toHaveLength(2);
});
