/** @tier unit */
/**
 * The server certificate and key kept between plugin starts (src/plugin/server-identity.ts): a
 * later start reuses them, only from a private file of ours, never past their validity, never a
 * key that does not match; and the built plugin, started twice by an engine-like client, announces
 * the same certificate in both handshake lines and still accepts only that start's client.
 */
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { CERT_LIFETIME_S, keptServerIdentity } from "../../src/plugin/server-identity";
import { createSelfSignedCertificate } from "../../src/plugin/tls";
import { PluginHarness, connectAndRequest, engineEnv } from "../../testkit/plugin-harness";

jest.setTimeout(60_000);

let cacheDir: string;
const file = () => join(cacheDir, "server-identity.pem");

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), "mgmt-server-identity-"));
  chmodSync(cacheDir, 0o700);
});
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

const DAY = 24 * 3600 * 1000;

it("makes an identity once, saves it private, and reads the same one on later starts", () => {
  const first = keptServerIdentity(cacheDir);
  expect(first.source).toBe("made");
  first.settle();
  expect(statSync(file()).mode & 0o777).toBe(0o600);
  const second = keptServerIdentity(cacheDir);
  expect(second.source).toBe("read");
  expect(second.identity.certDer.equals(first.identity.certDer)).toBe(true);
  expect(second.identity.keyPem).toBe(first.identity.keyPem);
  const cert = new X509Certificate(second.identity.certPem);
  expect(cert.raw.equals(second.identity.certDer)).toBe(true);
  expect(cert.subjectAltName).toBe("DNS:localhost");
  // A short-lived certificate, unlike a per-start one.
  expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(CERT_LIFETIME_S * 1000);
});

it("does not use a file that others can read, or one behind a symlink", () => {
  const kept = keptServerIdentity(cacheDir);
  kept.settle();
  chmodSync(file(), 0o640);
  const exposed = keptServerIdentity(cacheDir);
  expect(exposed.source).toBe("made");
  expect(exposed.identity.certDer.equals(kept.identity.certDer)).toBe(false);
  // The replacement is private again.
  exposed.settle();
  expect(statSync(file()).mode & 0o777).toBe(0o600);
  expect(keptServerIdentity(cacheDir).identity.certDer.equals(exposed.identity.certDer)).toBe(true);

  const elsewhere = join(cacheDir, "elsewhere");
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "id.pem"), readFileSync(file()), { mode: 0o600 });
  rmSync(file());
  symlinkSync(join(elsewhere, "id.pem"), file());
  expect(keptServerIdentity(cacheDir).source).toBe("made");
});

it("remakes an identity that is not yet valid, or within a week of its end", () => {
  const now = new Date();
  const kept = keptServerIdentity(cacheDir, now);
  kept.settle();
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() + 20 * DAY)).source).toBe("read");
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() + 24 * DAY)).source).toBe("made");
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() - DAY)).source).toBe("made");
});

it("remakes an identity from a damaged file, and drops a read one when told its key is not the certificate's", () => {
  const now = Date.now();
  const valid = `valid ${now - DAY} ${now + 20 * DAY}\n`;
  const a = createSelfSignedCertificate();
  const b = createSelfSignedCertificate();
  // No validity line, a torn certificate, a certificate that is not DER.
  for (const text of [
    a.keyPem + a.certPem,
    valid + a.keyPem + a.certPem.slice(0, 60),
    valid + a.keyPem + "-----BEGIN CERTIFICATE-----\nbm90IGRlcg==\n-----END CERTIFICATE-----\n",
  ]) {
    writeFileSync(file(), text, { mode: 0o600 });
    expect(keptServerIdentity(cacheDir).source).toBe("made");
  }

  writeFileSync(file(), valid + b.keyPem + a.certPem, { mode: 0o600 });
  const mismatched = keptServerIdentity(cacheDir);
  // Read without node:crypto before the line; node:tls checks the key as it makes its context.
  expect(mismatched.source).toBe("read");
  expect(mismatched.identity.certDer.equals(a.certDer)).toBe(true);
  mismatched.settle();
  expect(existsSync(file())).toBe(true);
  mismatched.discard();
  expect(existsSync(file())).toBe(false);
  const next = keptServerIdentity(cacheDir);
  expect(next.source).toBe("made");
  // Discarding a made identity leaves nothing to remove and does not stop it being kept.
  next.discard();
  next.settle();
  const again = keptServerIdentity(cacheDir);
  expect(again.source).toBe("read");
  expect(again.identity.certDer.equals(next.identity.certDer)).toBe(true);
});

it("the built plugin refuses to serve with a kept key that is not its certificate's, and the next start makes a new identity", async () => {
  const now = Date.now();
  const a = createSelfSignedCertificate();
  const b = createSelfSignedCertificate();
  writeFileSync(file(), `valid ${now - DAY} ${now + 20 * DAY}\n` + b.keyPem + a.certPem, { mode: 0o600 });
  const executable = repoPath("bin", "terraform-provider-mgmt");
  const env = { MGMT_PLUGIN_CACHE_DIR: cacheDir };
  const refused = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(executable, [], { env: engineEnv(createSelfSignedCertificate().certPem, env), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stderr }));
  });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("key values mismatch");
  expect(existsSync(file())).toBe(false);

  const next = await PluginHarness.start({ executable, env });
  try {
    expect(next.handshake.serverCertDer!.equals(a.certDer)).toBe(false);
    await expect(connectAndRequest(next, next.clientCert)).resolves.toBe(200);
  } finally {
    await next.shutdown();
  }
  expect(keptServerIdentity(cacheDir).source).toBe("read");
});

it("the built plugin announces the kept certificate on its next start and still pins each start's client", async () => {
  const env = { MGMT_PLUGIN_CACHE_DIR: cacheDir };
  const executable = repoPath("bin", "terraform-provider-mgmt");
  const first = await PluginHarness.start({ executable, env });
  const firstCert = first.handshake.serverCertDer!;
  await first.shutdown();
  expect(statSync(file()).mode & 0o777).toBe(0o600);

  // A preloaded probe tells, when the line is written, whether node:crypto was loaded for it.
  const probe = join(cacheDir, "probe.js");
  writeFileSync(
    probe,
    `const fs = require("fs"); const write = fs.writeSync;
     fs.writeSync = function (fd, ...rest) {
       if (fd === 1) process.stderr.write("crypto before the line: " + process.moduleLoadList.includes("NativeModule crypto") + "\\n");
       return write.call(this, fd, ...rest);
     };`,
  );
  // Without sharing: a start that looks for a shared host has loaded node:crypto for its name (shared-place.ts).
  const second = await PluginHarness.start({ executable, env: { ...env, NODE_OPTIONS: `--require ${probe}`, MGMT_PLUGIN_SHARED: "off" } });
  try {
    expect(second.handshake.serverCertDer!.equals(firstCert)).toBe(true);
    // The first start's engine certificate is refused (each start pins its own); this start's is served.
    await expect(connectAndRequest(second, first.clientCert)).rejects.toThrow(/refused/);
    await expect(connectAndRequest(second, second.clientCert)).resolves.toBe(200);
    // Written before the line, so here by now.
    expect(second.stderr).toContain("crypto before the line: false");
  } finally {
    await second.shutdown();
  }
});

it("a PLUGIN_CLIENT_CERT that is not a certificate stops the start with a message naming it, before the line", async () => {
  const run = (pem: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(repoPath("bin", "terraform-provider-mgmt"), [], {
        env: engineEnv(pem, { MGMT_PLUGIN_CACHE_DIR: cacheDir }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  // Not PEM at all: refused before the line.
  const garbage = await run("not a certificate");
  expect(garbage).toMatchObject({ code: 1, stdout: "" });
  expect(garbage.stderr).toContain("PLUGIN_CLIENT_CERT does not hold a PEM certificate");
  // PEM armour around something that is not DER: refused before the line too, without node:crypto.
  const armoured = await run("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----");
  expect(armoured).toMatchObject({ code: 1, stdout: "" });
  expect(armoured.stderr).toContain("PLUGIN_CLIENT_CERT does not hold a PEM certificate: its content is not a DER certificate");
  // The socket folder the line named is gone with the process.
  const address = armoured.stdout.split("|")[3];
  expect(address && existsSync(address)).toBeFalsy();
});
