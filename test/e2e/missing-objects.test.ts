/** @tier engine */
/**
 * A tag naming an object the account lacks, on a real engine against an account without it: the
 * apply fails on the tag saying the object may not exist (the API answers it as it answers an object
 * the user may not change, and lists no such objects, so the plan cannot know); without the id the
 * next apply finishes.
 */
import { availableEngines, type Engine } from "../../src/harness/engine";
import { EngineStack } from "./stack";

jest.setTimeout(300_000);

describe.each(availableEngines())("$name: a tag naming an object the account lacks", (engine: Engine) => {
  let stack: EngineStack;
  beforeAll(async () => {
    stack = await EngineStack.start(engine);
  });
  afterAll(() => stack?.stop());

  it("fails at apply saying the object may not exist, and the apply without it finishes", async () => {
    const tag = (domains: number[]) => ({
      resource: {
        mgmt_tag: { zone: { label: "missing-zone", domains } },
        mgmt_token: { ci: { label: "missing-objects-ci", scopes: "events:read_only", expires_in: "720h" } },
      },
    });
    stack.write(tag([424242]));
    const failed = await stack.run("apply", "-auto-approve");
    expect(failed.code).not.toBe(0);
    const output = (failed.stdout + failed.stderr).replace(/\s+/g, " ");
    expect(output).toContain("domains.0: You do not have read_write access to domain 424242 (HTTP 403)");
    expect(output).toContain("The account may have no such domain");
    expect(Object.keys(await stack.state())).not.toContain("mgmt_tag.zone");

    stack.write(tag([]));
    await stack.ok("apply", "-auto-approve");
    await stack.expectNoChanges();
  });
});
