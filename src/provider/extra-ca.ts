/**
 * NODE_EXTRA_CA_CERTS for the API client, loaded when the client is made rather than at every
 * plugin start. node reads that file before any code runs and parses every certificate in it,
 * together with its own bundled roots, which here cost about 80 ms of each start; the engines
 * start the plugin two or three times per command, and only a start that talks HTTPS to the API
 * needs the certificates. So the plugin's launchers (scripts/build.mjs) hand the path over under
 * HANDED_OVER_ENV and unset NODE_EXTRA_CA_CERTS, and this module gives the client the trust node
 * would have had: the bundled roots plus the file's certificates.
 */
import { readFileSync } from "node:fs";
import { type SecureContext, createSecureContext, rootCertificates } from "node:tls";
import type { Log } from "./framework/log";

export const HANDED_OVER_ENV = "MGMT_PLUGIN_NODE_EXTRA_CA_CERTS";

/** One context per process, like node's own root store: building it parses every root again. */
let made: { readonly file: string; readonly context: SecureContext | undefined } | undefined;

/**
 * The TLS context for HTTPS to the API when the launcher handed a CA file over, else undefined
 * (node's defaults, which already include NODE_EXTRA_CA_CERTS when node read it itself). A file
 * that cannot be read or holds no certificate is skipped with a warning, as node skips it.
 */
export function extraCaContext(env: NodeJS.ProcessEnv, log: Log): SecureContext | undefined {
  const file = env[HANDED_OVER_ENV];
  if (!file) return undefined;
  if (made?.file !== file) made = { file, context: load(file, log) };
  return made.context;
}

function load(file: string, log: Log): SecureContext | undefined {
  try {
    const pem = readFileSync(file, "utf8");
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw new Error("no PEM certificate in it");
    return createSecureContext({ ca: [...rootCertificates, pem] });
  } catch (e) {
    log("warn", `Ignoring extra certs from ${file} (NODE_EXTRA_CA_CERTS): ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}
