/**
 * The rules at synth: the `MgmtPolicy` Aspect as the bindings package ships it (dist/cdktf-bindings/lib/policy.js,
 * made by the build) on stacks of the generated constructs. An error fails the synth naming the construct path and
 * the rule; warnings, waivers and values known only at apply are annotations in the stack's manifest.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Aspects, TerraformStack, TerraformVariable } from "cdktf";
import { OauthClient } from "../../generated/providers/mgmt/oauth-client";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { SshKey } from "../../generated/providers/mgmt/ssh-key";
import { Token as MgmtToken } from "../../generated/providers/mgmt/token";
import { repoPath } from "../../src/harness/paths";
import { sshKeyText } from "../../testkit/ssh-keys";

// The shipped bundle, typed by its source.
const { MgmtPolicy } = require(repoPath("dist/cdktf-bindings/lib/policy.js")) as typeof import("../../src/policy/aspect");

const NOW = new Date("2026-03-01T12:00:00Z");
const GOOD = { label: "team-ci deploy", scopes: "account:read_only", expiresIn: "720h", renewBefore: "168h" };

interface Annotation {
  constructPath: string;
  level: string;
  message: string;
}

describe("MgmtPolicy at synth", () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), "mgmt-policy-synth-"));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  /** A stack named "team" with the provider, built by `build`, the Aspect added with `policy` (a file's contents) read from a file. */
  function synth(build: (stack: TerraformStack) => void, policy?: unknown): { error?: string; annotations: Annotation[] } {
    const app = new App({ outdir: join(work, "out") });
    const stack = new TerraformStack(app, "team");
    new MgmtProvider(stack, "mgmt", {});
    build(stack);
    let configFile: string | undefined;
    if (policy !== undefined) writeFileSync((configFile = join(work, "mgmt-policy.json")), JSON.stringify(policy, null, 2));
    Aspects.of(stack).add(new MgmtPolicy({ ...(configFile ? { configFile } : {}), now: NOW }));
    try {
      app.synth();
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err), annotations: [] };
    }
    const manifest = JSON.parse(readFileSync(join(work, "out", "manifest.json"), "utf8")) as { stacks: { team: { annotations: Annotation[] } } };
    return { annotations: manifest.stacks.team.annotations.map(({ constructPath, level, message }) => ({ constructPath, level, message })) };
  }

  it("fails the synth on an error, naming the construct path and the rule", () => {
    const r = synth((stack) => {
      new MgmtToken(stack, "admin", { ...GOOD, scopes: "*" });
      new SshKey(stack, "old-laptop", { label: "old laptop", sshKey: sshKeyText("rsa", "old@test") });
      new OauthClient(stack, "web", { label: "team-web", redirectUri: "http://app.example.com/cb" });
      new MgmtToken(stack, "fine", GOOD);
    });
    expect(r.error).toMatch(/Encountered Annotations with level "ERROR"/);
    expect(r.error).toContain("team/admin");
    expect(r.error).toContain("[mgmt policy token-scopes] `scopes` is `*`");
    expect(r.error).toContain("team/old-laptop");
    expect(r.error).toContain("[mgmt policy ssh-key-strength] RSA key of 2048 bits");
    expect(r.error).toContain("team/web");
    expect(r.error).toContain("[mgmt policy oauth-redirect-https]");
    expect(r.error).not.toContain("team/fine");
  });

  it("puts each finding on one line, without a stack trace, and writes them for review where MGMT_POLICY_SYNTH_JSON says", () => {
    const out = join(work, "synth-policy.json");
    process.env.MGMT_POLICY_SYNTH_JSON = out;
    let r: ReturnType<typeof synth>;
    try {
      r = synth((stack) => {
        new MgmtToken(stack, "admin", { ...GOOD, scopes: "*" });
        new MgmtToken(stack, "fine", GOOD);
      });
    } finally {
      delete process.env.MGMT_POLICY_SYNTH_JSON;
    }
    expect(r.error).toContain("[mgmt policy token-scopes] `scopes` is `*`");
    // No frame of a stack trace ("    at …") anywhere in what the synth prints.
    expect(r.error).not.toMatch(/^\s+at /m);
    const written = JSON.parse(readFileSync(out, "utf8")) as {
      passed: boolean;
      summary: { checked: number };
      findings: { rule: string; address: string; message: string }[];
    };
    expect(written.passed).toBe(false);
    expect(written.summary.checked).toBe(2);
    expect(written.findings).toEqual([
      expect.objectContaining({
        rule: "token-scopes",
        address: "mgmt_token.admin (construct team/admin)",
        message: expect.stringContaining("`scopes` is `*`"),
      }),
    ]);
  });

  it("holds labels to the configured pattern: a token and a client outside it fail, those inside pass", () => {
    const r = synth(
      (stack) => {
        new MgmtToken(stack, "unowned", { ...GOOD, label: "deploy" });
        new OauthClient(stack, "unowned-app", { label: "dashboard", redirectUri: "https://app.example.com/cb" });
        new MgmtToken(stack, "owned", GOOD);
        new OauthClient(stack, "owned-app", { label: "team-web", redirectUri: "https://app.example.com/cb" });
      },
      { rules: { "label-pattern": { pattern: "^team-" }, "oauth-public": "off" } },
    );
    expect(r.error).toContain("team/unowned");
    expect(r.error).toContain("team/unowned-app");
    expect(r.error).toMatch(/\[mgmt policy label-pattern\]/);
    expect(r.error).not.toMatch(/team\/owned(-app)?\b(?!-)/);
  });

  it("passes a clean stack; warnings, waivers and unknowns are annotations", () => {
    const r = synth(
      (stack) => {
        new MgmtToken(stack, "fine", GOOD);
        new MgmtToken(stack, "lapsing", { ...GOOD, renewBefore: undefined });
        new OauthClient(stack, "cli", { label: "team-cli", redirectUri: "http://127.0.0.1:8765/cb", public: true });
        const scopes = new TerraformVariable(stack, "scopes", { type: "string" });
        new MgmtToken(stack, "from-var", { ...GOOD, scopes: scopes.stringValue });
        new MgmtToken(stack, "forever", { label: "team-ci forever", scopes: "account:read_only" });
        new SshKey(stack, "laptop", { label: "laptop", sshKey: sshKeyText("ed25519", "me@test") });
      },
      {
        waivers: [
          // By construct path, and by the resource address the plan shows: one waiver serves both checks.
          { rule: "token-expiry", address: "team/forever", reason: "rotated by hand, INC-9", expires: "2026-03-31" },
          { rule: "oauth-public", address: "mgmt_oauth_client.cli", reason: "a native CLI", expires: "2026-03-01" },
        ],
      },
    );
    expect(r.error).toBeUndefined();
    const byPath = (path: string) => r.annotations.filter((a) => a.constructPath === path).map((a) => [a.level, a.message]);
    expect(byPath("team/fine")).toEqual([]);
    expect(byPath("team/laptop")).toEqual([]);
    expect(byPath("team/lapsing")).toEqual([["@cdktf/warn", expect.stringMatching(/^\[mgmt policy token-renewal\] `renew_before` is not set/)]]);
    expect(byPath("team/forever")).toEqual([
      ["@cdktf/info", expect.stringMatching(/token-expiry\] the token never expires.*\(waived until 2026-03-31: rotated by hand, INC-9\)$/)],
    ]);
    expect(byPath("team/cli")).toEqual([["@cdktf/info", expect.stringMatching(/oauth-public\] .*waived until 2026-03-01: a native CLI/)]]);
    expect(byPath("team/from-var")).toEqual([["@cdktf/info", "[mgmt policy token-scopes] `scopes` is known only after apply: not checkable at synth"]]);
  });

  it("an expired waiver fails again; a bad configuration fails the Aspect's construction with its line", () => {
    const r = synth((stack) => new MgmtToken(stack, "forever", { label: "team-ci forever", scopes: "account:read_only" }), {
      waivers: [{ rule: "token-expiry", address: "team/forever", reason: "rotated by hand", expires: "2026-02-28" }],
    });
    expect(r.error).toContain("team/forever");
    expect(r.error).toContain("its waiver expired on 2026-02-28");

    writeFileSync(join(work, "bad.json"), '{\n  "rules": { "token-expiry": "sometimes" }\n}');
    expect(() => new MgmtPolicy({ configFile: join(work, "bad.json") })).toThrow(
      /bad\.json:2: rules\.token-expiry must be "error", "warning" or "off", not "sometimes"/,
    );
  });

  it("CDK Terrain's bindings package ships the same Aspect, importing cdktn", () => {
    // cdktn lives in the example's workspace, as it does in a cdktn project beside the package.
    const program = `
      const { createRequire } = require("node:module");
      const lib = createRequire(${JSON.stringify(repoPath("dist/cdktn-bindings/lib/index.js"))});
      const { App, TerraformStack, Aspects } = lib("cdktn");
      const app = new App({ outdir: ${JSON.stringify(join(work, "cdktn.out"))} });
      const stack = new TerraformStack(app, "team");
      new (lib("./provider").MgmtProvider)(stack, "mgmt", {});
      new (lib("./token").Token)(stack, "admin", { label: "x", scopes: "*", expiresIn: "720h", renewBefore: "168h" });
      Aspects.of(stack).add(new (lib("./policy").MgmtPolicy)());
      app.synth();`;
    const r = spawnSync(process.execPath, ["-e", program], {
      cwd: work,
      encoding: "utf8",
      env: { ...process.env, NODE_PATH: repoPath("examples/cdktn/node_modules") },
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Encountered Annotations with level "ERROR"');
    expect(r.stderr).toContain("[team/admin] [mgmt policy token-scopes] `scopes` is `*`");
  });
});
