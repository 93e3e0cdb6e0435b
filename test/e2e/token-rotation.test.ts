/**
 * A token due for renewal, rotated by each engine: planned as an in-place update with its reason,
 * applied as create-then-revoke. A watcher polls the API through the apply: at no moment does the
 * old value fail while the new token does not yet exist.
 */
import { MgmtClient } from "../../src/client";
import { availableEngines, type Engine } from "../../src/harness/engine";
import { EngineStack } from "./stack";

jest.setTimeout(300_000);

// Due one second after it is made: the provider plans on its own (real) clock.
const TOKEN = { label: "rotated-by-engine", scopes: "account:read_only", expires_in: "1h", renew_before: "59m59s" };

describe.each(availableEngines())("$name: a token due for renewal", (engine: Engine) => {
  let stack: EngineStack;
  beforeAll(async () => {
    stack = await EngineStack.start(engine);
  });
  afterAll(() => stack?.stop());

  const status = async (url: string, token: string): Promise<number> => {
    const c = new MgmtClient({ url, token, retry: { maxRetries: 0 } });
    try {
      await c.getProfile();
      return 200;
    } catch (err) {
      return (err as { status?: number }).status ?? -1;
    } finally {
      await c.close();
    }
  };

  it("rotates in place, the new token existing before the old one is revoked", async () => {
    stack.write({ resource: { mgmt_token: { ci: TOKEN } } });
    await stack.ok("apply", "-auto-approve");
    const before = (await stack.state())["mgmt_token.ci"]!;
    const old = String(before.token);
    await new Promise((r) => setTimeout(r, 1500));

    const plan = await stack.plan();
    expect(plan.actions).toEqual({ "mgmt_token.ci": ["update"] });
    expect(plan.output).toMatch(/Rotating the token: expires \d{4}-\d{2}-\d{2}, inside renew_before 59m59s/);

    // The watcher: the old value's answer, and whether another token of the label exists yet.
    const samples: { old: number; fresh: boolean }[] = [];
    let applying = true;
    const watch = (async () => {
      while (applying) {
        const oldStatus = await status(stack.server.url, old);
        let fresh = false;
        for await (const t of stack.client.listTokens()) if (t.label === TOKEN.label && String(t.id) !== String(before.id)) fresh = true;
        samples.push({ old: oldStatus, fresh });
      }
    })();
    try {
      await stack.ok("apply", "-auto-approve");
    } finally {
      applying = false;
      await watch;
    }
    expect(samples.filter((s) => s.old !== 200 && !s.fresh)).toEqual([]);

    const after = (await stack.state())["mgmt_token.ci"]!;
    expect(after.id).not.toBe(before.id);
    expect(await status(stack.server.url, old)).toBe(401);
    expect(await status(stack.server.url, String(after.token))).toBe(200);
  });
});
