/**
 * AutoMTLS, the way go-plugin does it: the engine puts its own self-signed client
 * certificate in PLUGIN_CLIENT_CERT; the plugin makes a fresh self-signed server certificate,
 * announces it (DER, base64) in the handshake line and accepts only the engine's certificate.
 *
 * Node's crypto makes keys and signatures but not certificates, and X.509 libraries
 * (node-forge, @peculiar/x509) cost tens of milliseconds to load on every plugin start. A
 * self-signed certificate is a fixed ASN.1 shape, so it is written here as DER directly
 * (RFC 5280 §4.1). The builder is parametric so tests can make a go-plugin-like client
 * certificate (P-521, SHA-512) with it.
 */
import { type KeyObject, X509Certificate, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import type { TlsOptions } from "node:tls";
import { pemCertificateDer } from "./handshake";

export type Curve = "P-256" | "P-384" | "P-521";
export type Hash = "sha256" | "sha384" | "sha512";

export interface CertificateOptions {
  readonly curve?: Curve;
  readonly hash?: Hash;
  readonly commonName?: string;
  readonly organization?: string;
  readonly dnsNames?: readonly string[];
  /** Defaults to now; notBefore is 30 s earlier to absorb clock skew (as go-plugin does). */
  readonly now?: Date;
  readonly validForSeconds?: number;
}

/** What a TLS server needs of its certificate: the certificate (both encodings) and its key. */
export interface ServerIdentity {
  readonly certDer: Buffer;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface SelfSignedCertificate extends ServerIdentity {
  readonly key: KeyObject;
}

// --- DER --------------------------------------------------------------------------------

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const octetString = (b: Buffer) => tlv(0x04, b);
const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);

/** A non-negative INTEGER from big-endian magnitude bytes (DER: minimal, sign bit clear). */
function unsignedInteger(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const bytes = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** BIT STRING of named bits (bit 0 = most significant bit of the first byte), DER-minimal. */
function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] |= 0x80 >> (b % 8);
  const unused = 7 - (highest % 8);
  return tlv(0x03, Buffer.from([unused]), bytes);
}

/**
 * RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. The digits come from the
 * UTC fields: the first toISOString() in a process costs a millisecond, on every plugin start.
 */
function time(d: Date): Buffer {
  const two = (n: number) => String(n).padStart(2, "0");
  const year = d.getUTCFullYear();
  const digits = `${String(year).padStart(4, "0")}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), "ascii")) : tlv(0x18, Buffer.from(digits, "ascii"));
}

// --- X.509 ------------------------------------------------------------------------------

const OID = {
  ecdsaWith: { sha256: "1.2.840.10045.4.3.2", sha384: "1.2.840.10045.4.3.3", sha512: "1.2.840.10045.4.3.4" },
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyAgreement: 4, keyCertSign: 5 } as const;

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

function name(commonName: string, organization?: string): Buffer {
  const rdn = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...(organization ? [rdn(OID.organization, organization)] : []), rdn(OID.commonName, commonName));
}

export function toPem(der: Buffer, label = "CERTIFICATE"): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * A self-signed CA-flagged leaf with the shape go-plugin's generateCert() produces: it is both
 * the server's identity and the only root the peer trusts, so it must carry SAN localhost
 * (Go ignores the CN), serverAuth+clientAuth and certSign.
 */
export function createSelfSignedCertificate(options: CertificateOptions = {}): SelfSignedCertificate {
  const hash = options.hash ?? "sha256";
  const commonName = options.commonName ?? "localhost";
  const dnsNames = options.dnsNames ?? ["localhost"];
  const now = options.now ?? new Date();
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 30_000);
  const notAfter = new Date(notBefore.getTime() + (options.validForSeconds ?? 30 * 365 * 24 * 3600) * 1000);

  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: options.curve ?? "P-256" });
  const signatureAlgorithm = sequence(objectIdentifier(OID.ecdsaWith[hash])); // parameters absent (RFC 5758)
  // Random positive serial; go-plugin uses 128 random bits too. Leading bit cleared keeps
  // it at 16 bytes and positive, which Go requires.
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const issuerAndSubject = name(commonName, options.organization);

  const tbs = sequence(
    explicit(0, tlv(0x02, Buffer.from([2]))), // v3
    unsignedInteger(serial),
    signatureAlgorithm,
    issuerAndSubject,
    sequence(time(notBefore), time(notAfter)),
    issuerAndSubject,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(
      3,
      sequence(
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        extension(OID.keyUsage, true, namedBits(Object.values(KEY_USAGE))),
        extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth), objectIdentifier(OID.clientAuth))),
        extension(OID.subjectAltName, false, sequence(...dnsNames.map((dns) => tlv(0x82, Buffer.from(dns, "ascii"))))),
      ),
    ),
  );
  // For EC keys node signs in DER (r,s) form, which is what X.509 carries.
  const signature = sign(hash, tbs, privateKey);
  const certDer = sequence(tbs, signatureAlgorithm, tlv(0x03, Buffer.from([0]), signature));
  return {
    certDer,
    certPem: toPem(certDer),
    key: privateKey,
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/**
 * TLS settings for the plugin's HTTP/2 server. A client certificate is required, but checked by
 * pinning (pinnedClientCertificate, applied by the transport), not against a trust store: any
 * `ca` certificate makes node parse its whole bundled root store to build the store it then
 * replaces, tens of milliseconds on every start. So the store is empty (`ca: []`), and
 * rejectUnauthorized is off only so that the handshake completes and the transport can compare.
 * ALPN h2 is required by grpc-go ≥ 1.67 (Terraform 1.11+), which refuses a connection without it.
 */
export function serverTlsOptions(server: ServerIdentity): TlsOptions {
  return {
    key: server.keyPem,
    cert: server.certPem,
    ca: [],
    requestCert: true,
    rejectUnauthorized: false,
    ALPNProtocols: ["h2"],
    minVersion: "TLSv1.2",
  };
}

/**
 * Whether a TLS client is the engine: it presented exactly PLUGIN_CLIENT_CERT (the same DER bytes)
 * while that certificate is valid. The handshake has already made the client prove it holds the
 * certificate's private key (CertificateVerify), and only the process that started us has it.
 * That is as strict as the trust store it replaces, which held this self-signed certificate alone:
 * a different certificate, even with the same subject, or none at all, is refused.
 *
 * The pin is the certificate's bytes (handshake.ts pemCertificateDer), so nothing parses it on the
 * way to the first answer; its validity is read from the peer's certificate once the bytes match, which is
 * then the same certificate.
 */
export function pinnedClientCertificate(clientCert: string | Buffer): (peer: X509Certificate | undefined, now?: Date) => boolean {
  const pinned = typeof clientCert === "string" ? pemCertificateDer(clientCert) : clientCert;
  let validity: { notBefore: number; notAfter: number } | undefined;
  return (peer, now = new Date()) => {
    if (peer === undefined || !peer.raw.equals(pinned)) return false;
    validity ??= { notBefore: Date.parse(peer.validFrom), notAfter: Date.parse(peer.validTo) };
    return validity.notBefore <= now.getTime() && now.getTime() <= validity.notAfter;
  };
}
