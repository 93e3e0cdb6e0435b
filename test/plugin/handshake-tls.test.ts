/** @tier unit */
/** The handshake line, the environment checks and the hand-built certificates, in process. */
import { X509Certificate } from "node:crypto";
import { Server, connect, createServer } from "node:net";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAGIC_COOKIE_VALUE, checkEnvironment, handshakeLine, listen, listenOnPath, pemCertificateDer } from "../../src/plugin/handshake";
import { createSelfSignedCertificate, pinnedClientCertificate } from "../../src/plugin/tls";
import { parseHandshake } from "../../testkit/plugin-harness";

const cookie = { TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE };

describe("environment checks", () => {
  test("accepts the engine's environment; the client certificate is optional", () => {
    expect(checkEnvironment({ ...cookie, PLUGIN_PROTOCOL_VERSIONS: "5,6", PLUGIN_CLIENT_CERT: "PEM\n" })).toEqual({ ok: true, clientCertPem: "PEM" });
    expect(checkEnvironment({ ...cookie, PLUGIN_PROTOCOL_VERSIONS: "6,5" })).toEqual({ ok: true });
    expect(checkEnvironment({ ...cookie })).toEqual({ ok: true });
  });

  test("refuses a wrong cookie or an engine without protocol 6", () => {
    expect(checkEnvironment({})).toMatchObject({ ok: false, message: expect.stringMatching(/plugin/) });
    expect(checkEnvironment({ TF_PLUGIN_MAGIC_COOKIE: "x" })).toMatchObject({ ok: false });
    expect(checkEnvironment({ ...cookie, PLUGIN_PROTOCOL_VERSIONS: "5" })).toMatchObject({ ok: false, message: expect.stringContaining("protocol 6") });
  });
});

describe("handshake line", () => {
  test("6 fields with unpadded standard base64 of the DER certificate", () => {
    const cert = createSelfSignedCertificate();
    const line = handshakeLine({ network: "unix", address: "/tmp/x/plugin.sock" }, cert.certDer);
    expect(line.endsWith("\n")).toBe(true);
    const fields = line.trim().split("|");
    expect(fields.slice(0, 5)).toEqual(["1", "6", "unix", "/tmp/x/plugin.sock", "grpc"]);
    expect(fields[5]).toBe(cert.certDer.toString("base64").replace(/=+$/, ""));
    expect(parseHandshake(line, true).serverCertDer).toEqual(cert.certDer);
  });

  test("padding is stripped for every DER length", () => {
    for (let n = 0; n < 3; n++) {
      const line = handshakeLine({ network: "tcp", address: "127.0.0.1:1" }, Buffer.alloc(30 + n, 1));
      expect(line).not.toMatch(/=/);
    }
  });

  test("5 fields without a certificate", () => {
    expect(handshakeLine({ network: "tcp", address: "127.0.0.1:12345" })).toBe("1|6|tcp|127.0.0.1:12345|grpc\n");
  });
});

describe("listening", () => {
  const close = (s: Server) => new Promise((r) => s.close(r));

  test("unix socket in a fresh private directory, removed by cleanup", async () => {
    const s = createServer();
    const l = await listen(s, {}, "linux");
    expect(l.network).toBe("unix");
    expect(existsSync(l.address)).toBe(true);
    await close(s);
    l.cleanup();
    expect(existsSync(l.address)).toBe(false);
  });

  test("on a path without node's listen(): connections arrive, address() names the path, a taken path is an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mgmt-listen-"));
    const path = join(dir, "plugin.sock");
    const s = createServer((socket) => socket.end("hello"));
    try {
      await new Promise<void>((resolve) => listenOnPath(s, path, resolve));
      expect(s.address()).toBe(path);
      const answer = await new Promise<string>((resolve, reject) => {
        let got = "";
        connect(path)
          .on("data", (d) => (got += d.toString()))
          .on("end", () => resolve(got))
          .on("error", reject);
      });
      expect(answer).toBe("hello");
      const second = createServer();
      const failed = await new Promise<NodeJS.ErrnoException>((resolve) => {
        second.once("error", resolve);
        listenOnPath(second, path, () => resolve(new Error("listening")));
      });
      expect(failed.code).toBe("EADDRINUSE");
    } finally {
      await close(s);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("tcp on 127.0.0.1 within PLUGIN_MIN_PORT..PLUGIN_MAX_PORT where unix sockets are not used", async () => {
    const blocker = createServer();
    const l1 = await listen(blocker, { PLUGIN_MIN_PORT: "23456", PLUGIN_MAX_PORT: "23460" }, "win32");
    const s = createServer();
    const l2 = await listen(s, { PLUGIN_MIN_PORT: "23456", PLUGIN_MAX_PORT: "23460" }, "win32");
    expect(l1.address).toMatch(/^127\.0\.0\.1:2345\d$/);
    expect(l2.address).not.toBe(l1.address);
    await Promise.all([close(blocker), close(s)]);
  });
});

describe("self-signed certificates", () => {
  test.each([
    ["P-256", "sha256"],
    ["P-521", "sha512"],
    ["P-384", "sha384"],
  ] as const)("%s / %s parse and verify with OpenSSL", (curve, hash) => {
    const now = new Date();
    const c = createSelfSignedCertificate({ curve, hash, organization: "HashiCorp", now });
    const x = new X509Certificate(c.certDer);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkIssued(x)).toBe(true);
    expect(x.ca).toBe(true);
    expect(x.subject).toBe("O=HashiCorp\nCN=localhost");
    expect(x.subjectAltName).toBe("DNS:localhost");
    expect(x.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    expect(x.publicKey.asymmetricKeyDetails?.namedCurve).toBe({ "P-256": "prime256v1", "P-384": "secp384r1", "P-521": "secp521r1" }[curve]);
    expect(new Date(x.validFrom).getTime()).toBeLessThanOrEqual(now.getTime() - 29_000);
    expect(x.checkPrivateKey(c.key)).toBe(true);
    expect(c.certPem).toBe(x.toString());
  });

  test("validity dates switch to GeneralizedTime from 2050 (RFC 5280)", () => {
    const c = createSelfSignedCertificate({ now: new Date("2049-12-31T23:00:00Z"), validForSeconds: 7200 });
    const x = new X509Certificate(c.certDer);
    expect(new Date(x.validFrom).toISOString()).toBe("2049-12-31T22:59:30.000Z");
    expect(new Date(x.validTo).toISOString()).toBe("2050-01-01T00:59:30.000Z");
    // 0x17 UTCTime for notBefore, 0x18 GeneralizedTime for notAfter.
    const der = c.certDer.toString("hex");
    expect(der).toContain("170d" + Buffer.from("491231225930Z").toString("hex"));
    expect(der).toContain("180f" + Buffer.from("20500101005930Z").toString("hex"));
  });

  test("serial numbers are positive, 16 bytes and random", () => {
    const serials = new Set(Array.from({ length: 20 }, () => new X509Certificate(createSelfSignedCertificate().certDer).serialNumber));
    expect(serials.size).toBe(20);
    for (const s of serials) expect(s).toMatch(/^[0-7][0-9A-F]{31}$/);
  });
});

describe("the engine's certificate, pinned", () => {
  const now = new Date("2030-06-01T12:00:00Z");
  const engine = createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp", now, validForSeconds: 3600 });
  const isEngine = pinnedClientCertificate(engine.certPem);

  test("accepts exactly PLUGIN_CLIENT_CERT, however it was parsed", () => {
    expect(isEngine(new X509Certificate(engine.certDer), now)).toBe(true);
  });

  test("refuses no certificate, and one with the same subject and shape but another key", () => {
    const lookalike = createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp", now, validForSeconds: 3600 });
    expect(new X509Certificate(lookalike.certDer).subject).toBe(new X509Certificate(engine.certDer).subject);
    expect(isEngine(undefined, now)).toBe(false);
    expect(isEngine(new X509Certificate(lookalike.certDer), now)).toBe(false);
  });

  test("pins the same certificate given as DER, as the plugin does", () => {
    const byDer = pinnedClientCertificate(engine.certDer);
    expect(byDer(new X509Certificate(engine.certPem), now)).toBe(true);
    expect(byDer(new X509Certificate(createSelfSignedCertificate({ now }).certDer), now)).toBe(false);
  });

  test("refuses it outside its validity, as a trust store holding only it did", () => {
    const peer = new X509Certificate(engine.certDer);
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect(isEngine(peer, at(-30_000))).toBe(true); // notBefore, 30 s before creation
    expect(isEngine(peer, at(-31_000))).toBe(false);
    expect(isEngine(peer, at(3_570_000))).toBe(true); // notAfter
    expect(isEngine(peer, at(3_571_000))).toBe(false);
  });
});

describe("PLUGIN_CLIENT_CERT read without node:crypto", () => {
  const engine = createSelfSignedCertificate({ curve: "P-521", hash: "sha512", organization: "HashiCorp" });

  test("gives the certificate's DER bytes, whatever the line breaks and surrounding space", () => {
    expect(pemCertificateDer(engine.certPem).equals(engine.certDer)).toBe(true);
    expect(pemCertificateDer(`\n  ${engine.certPem.replace(/\n/g, "\r\n")}  \n`).equals(engine.certDer)).toBe(true);
  });

  test("refuses what is not one whole DER element in a certificate block, naming what is wrong", () => {
    const armour = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString("base64")}\n-----END CERTIFICATE-----\n`;
    expect(() => pemCertificateDer("not a certificate")).toThrow("not a PEM certificate block");
    expect(() => pemCertificateDer(engine.certPem.replace(/CERTIFICATE/g, "PUBLIC KEY"))).toThrow("not a PEM certificate block");
    expect(() => pemCertificateDer(engine.certPem + engine.certPem)).toThrow("not a PEM certificate block");
    expect(() => pemCertificateDer(armour(Buffer.from("not a certificate")))).toThrow("its content is not a DER certificate");
    // Cut short, or with bytes after the element.
    expect(() => pemCertificateDer(armour(engine.certDer.subarray(0, engine.certDer.length - 1)))).toThrow("its content is not a DER certificate");
    expect(() => pemCertificateDer(armour(Buffer.concat([engine.certDer, Buffer.from([0])])))).toThrow("its content is not a DER certificate");
  });
});
