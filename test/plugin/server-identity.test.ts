/**
 * The server certificate and key kept between plugin starts (src/plugin/server-identity.ts): a
 * later start reuses them, only from a private file of ours, never past their validity, never a
 * key that does not match; and the built plugin, started twice by an engine-like client, announces
 * the same certificate in both handshake lines and still accepts only that start's client.
 */
import { X509Certificate } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { CERT_LIFETIME_S, keptServerIdentity } from "../../src/plugin/server-identity";
import { createSelfSignedCertificate } from "../../src/plugin/tls";
import { PluginHarness, connectAndRequest } from "./harness";

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
  first.save();
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
  kept.save();
  chmodSync(file(), 0o640);
  const exposed = keptServerIdentity(cacheDir);
  expect(exposed.source).toBe("made");
  expect(exposed.identity.certDer.equals(kept.identity.certDer)).toBe(false);
  // The replacement is private again.
  exposed.save();
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
  kept.save();
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() + 20 * DAY)).source).toBe("read");
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() + 24 * DAY)).source).toBe("made");
  expect(keptServerIdentity(cacheDir, new Date(now.getTime() - DAY)).source).toBe("made");
});

it("remakes an identity from a damaged file or with a key that is not the certificate's", () => {
  writeFileSync(file(), "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n", { mode: 0o600 });
  expect(keptServerIdentity(cacheDir).source).toBe("made");

  const a = createSelfSignedCertificate();
  const b = createSelfSignedCertificate();
  writeFileSync(file(), b.keyPem + a.certPem, { mode: 0o600 });
  const mismatched = keptServerIdentity(cacheDir);
  expect(mismatched.source).toBe("made");
  mismatched.save();
  expect(keptServerIdentity(cacheDir).source).toBe("read");
});

it("the built plugin announces the kept certificate on its next start and still pins each start's client", async () => {
  const env = { MGMT_PLUGIN_CACHE_DIR: cacheDir };
  const executable = repoPath("bin", "terraform-provider-mgmt");
  const first = await PluginHarness.start({ executable, env });
  const firstCert = first.handshake.serverCertDer!;
  await first.shutdown();
  expect(statSync(file()).mode & 0o777).toBe(0o600);

  const second = await PluginHarness.start({ executable, env });
  try {
    expect(second.handshake.serverCertDer!.equals(firstCert)).toBe(true);
    // The first start's engine certificate is refused (each start pins its own); this start's is served.
    await expect(connectAndRequest(second, first.clientCert)).rejects.toThrow(/refused/);
    await expect(connectAndRequest(second, second.clientCert)).resolves.toBe(200);
  } finally {
    await second.shutdown();
  }
});
