/** @tier unit */
/**
 * The plugin transport as the engines see it: a separate process, the handshake line,
 * mutual TLS with ALPN h2, go-plugin's side services, and the process lifecycle.
 */
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import * as tls from "node:tls";
import * as grpc from "@grpc/grpc-js";
import { createSelfSignedCertificate, toPem } from "../../src/plugin/tls";
import { type BuiltPlugin, buildPlugin } from "./build-fixture";
import { PluginHarness, connectAndRequest, engineEnv, goPluginClientCertificate, launchPlugin } from "../../testkit/plugin-harness";

let plugin: BuiltPlugin;
const running: PluginHarness[] = [];

beforeAll(async () => {
  plugin = await buildPlugin();
});

afterAll(async () => {
  await Promise.all(running.map((h) => h.kill()));
  plugin?.cleanup();
});

async function start(options: Partial<Parameters<typeof PluginHarness.start>[0]> = {}): Promise<PluginHarness> {
  const h = await PluginHarness.start({ executable: plugin.executable, ...options });
  running.push(h);
  return h;
}

/** Runs the executable to completion, for starts that must fail. */
function runToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(plugin.executable, [], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("with AutoMTLS (PLUGIN_CLIENT_CERT set)", () => {
  let h: PluginHarness;
  beforeAll(async () => {
    h = await start();
  });

  test("prints a 6-field handshake line on a unix socket with an unpadded DER certificate", () => {
    const fields = h.handshake.line.split("|");
    expect(fields).toHaveLength(6);
    expect(fields.slice(0, 3)).toEqual(["1", "6", "unix"]);
    expect(fields[4]).toBe("grpc");
    expect(fields[5]).not.toMatch(/=/);
    expect(existsSync(h.handshake.address)).toBe(true);
    // parseHandshake already checked SAN, validity and self-signature; the shape Go expects:
    const cert = h.handshake.serverCert!;
    expect(cert.ca).toBe(true);
    expect(cert.subject).toContain("CN=localhost");
    expect(cert.keyUsage).toEqual(expect.arrayContaining(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]));
  });

  test("negotiates ALPN h2 and accepts the engine's client certificate", async () => {
    const socket = tls.connect({
      path: h.handshake.address,
      servername: "localhost",
      ALPNProtocols: ["h2"],
      ca: toPem(h.handshake.serverCertDer!),
      cert: h.clientCert!.certPem,
      key: h.clientCert!.keyPem,
    });
    await new Promise<void>((resolve, reject) => socket.once("secureConnect", resolve).once("error", reject));
    expect(socket.alpnProtocol).toBe("h2");
    expect(socket.authorized).toBe(true);
    socket.destroy();
  });

  test("refuses a TLS client without a certificate", async () => {
    await expect(connectAndRequest(h, undefined)).rejects.toThrow(/refused/);
  });

  test("refuses a TLS client with a certificate other than PLUGIN_CLIENT_CERT", async () => {
    const other = createSelfSignedCertificate({ curve: "P-521", hash: "sha512" });
    await expect(connectAndRequest(h, other)).rejects.toThrow(/refused/);
    // ...and the right certificate still works on the same server.
    await expect(connectAndRequest(h, h.clientCert)).resolves.toBe(200);
  });

  test("refuses a certificate with PLUGIN_CLIENT_CERT's subject and shape but another key", async () => {
    const lookalike = goPluginClientCertificate();
    expect(new X509Certificate(lookalike.certDer).subject).toBe(new X509Certificate(h.clientCert!.certDer).subject);
    await expect(connectAndRequest(h, lookalike)).rejects.toThrow(/refused/);
  });

  test("a refused client gets not one HTTP/2 frame back, even after sending its connection preface", async () => {
    const other = goPluginClientCertificate();
    const socket = tls.connect({
      path: h.handshake.address,
      servername: "localhost",
      ALPNProtocols: ["h2"],
      ca: toPem(h.handshake.serverCertDer!),
      cert: other.certPem,
      key: other.keyPem,
    });
    let received = 0;
    socket.on("data", (d: Buffer) => {
      received += d.length;
      socket.destroy();
    });
    socket.on("error", () => {}); // the server's reset is the expected end
    // The client preface and an empty SETTINGS frame, which a server that processed them would answer.
    socket.once("secureConnect", () =>
      socket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])])),
    );
    await new Promise((resolve) => socket.once("close", resolve));
    expect(socket.alpnProtocol).toBe("h2");
    expect(received).toBe(0);
  });

  test("health reports SERVING for 'plugin' and ''; NOT_FOUND for others", async () => {
    expect(await h.healthCheck("plugin")).toBe("SERVING");
    expect(await h.healthCheck("")).toBe("SERVING");
    await expect(h.healthCheck("nope")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  test("StreamStdio returns a stream that ends cleanly", async () => {
    await expect(h.streamStdio()).resolves.toEqual([]);
  });

  test("unknown methods and services answer UNIMPLEMENTED", async () => {
    await expect(h.rawUnary("/tfplugin6.Provider/GetResourceIdentitySchemas")).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
    await expect(h.rawUnary("/tfplugin6.Provider/NoSuchMethod")).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
    await expect(h.rawUnary("/no.Such/Service")).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
  });

  test("a request that is not valid protobuf answers INTERNAL with a message", async () => {
    const err = await h.rawUnary("/tfplugin6.Provider/ReadResource", Buffer.from([0x0a, 0xff])).catch((e: grpc.ServiceError) => e);
    expect(err).toMatchObject({ code: grpc.status.INTERNAL });
    expect((err as grpc.ServiceError).details).not.toBe("");
  });

  test("concurrent calls on one connection are all answered", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => h.readDataSource("mgmt_echo", { input: `x${i}`, output: null, length: null })));
    results.forEach((r, i) => expect(r.state).toEqual({ input: `x${i}`, output: `X${i}`, length: 2 + String(i).length - 1 }));
  });

  test("SIGINT is ignored (the engine sends StopProvider instead)", async () => {
    h.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 100));
    expect(await h.healthCheck()).toBe("SERVING");
  });

  test("nothing but the handshake reaches stdout", () => {
    expect(h.stdoutAfterHandshake).toBe("");
  });

  test("what provider code prints goes to stderr, not to the engine's stdout", async () => {
    const printing = await start({ env: { FIXTURE_PRINT: "printed by the provider" } });
    await printing.getProviderSchema(); // loads the provider
    for (let waited = 0; !printing.stderr.includes("again") && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(printing.stdoutAfterHandshake).toBe("");
    expect(printing.stderr).toContain("printed by the provider\n");
    expect(printing.stderr).toContain("printed by the provider again\n");
  });

  test("Shutdown answers, then the process exits with 0 and removes its socket", async () => {
    const socket = h.handshake.address;
    expect(await h.shutdown()).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(dirname(socket))).toBe(false);
  });
});

describe("with a PLUGIN_CLIENT_CERT that has expired", () => {
  test("the engine's own certificate is refused, as verifying against it as the only CA refused it", async () => {
    const expired = createSelfSignedCertificate({
      curve: "P-521",
      hash: "sha512",
      organization: "HashiCorp",
      now: new Date(Date.now() - 3_600_000),
      validForSeconds: 60,
    });
    const launched = await launchPlugin({ executable: plugin.executable, clientCert: expired });
    try {
      await expect(connectAndRequest(launched, expired)).rejects.toThrow(/refused/);
    } finally {
      launched.child.kill("SIGTERM");
      await launched.exited;
    }
  });
});

describe("start-up checks", () => {
  test("a wrong magic cookie exits 1 with a message on stderr and nothing on stdout", async () => {
    const r = await runToExit(engineEnv(undefined, { TF_PLUGIN_MAGIC_COOKIE: "wrong" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/This binary is a plugin/);
  });

  test("no magic cookie at all (run by hand) exits 1 the same way", async () => {
    const r = await runToExit(engineEnv(undefined, { TF_PLUGIN_MAGIC_COOKIE: undefined }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/not meant to be executed directly/);
  });

  test("an engine that does not offer protocol 6 is told so", async () => {
    const r = await runToExit(engineEnv(undefined, { PLUGIN_PROTOCOL_VERSIONS: "4,5" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/protocol 6/);
  });
});

describe("without TLS (TF_DISABLE_PLUGIN_TLS / reattach style)", () => {
  test("prints a 5-field line and serves plaintext h2", async () => {
    const h = await start({ tls: false });
    expect(h.handshake.line.split("|")).toHaveLength(5);
    expect(await h.healthCheck()).toBe("SERVING");
    const schema = await h.getProviderSchema();
    expect(Object.keys(schema.resources)).toEqual(["mgmt_widget"]);
    expect(await h.shutdown()).toBe(0);
  });
});

describe("lifecycle", () => {
  test("SIGTERM exits and cleans up the socket directory", async () => {
    const h = await start();
    h.child.kill("SIGTERM");
    const exit = await h.exited;
    expect(exit.code).toBe(0);
    expect(existsSync(dirname(h.handshake.address))).toBe(false);
  });

  test("exits when the engine process goes away without calling Shutdown", async () => {
    // A stand-in engine: a node process that starts the plugin and is then SIGKILLed.
    const env = engineEnv(undefined);
    const script = `
      const { spawn } = require("node:child_process");
      const child = spawn(${JSON.stringify(plugin.executable)}, [], { stdio: ["ignore", "pipe", "inherit"] });
      child.stdout.once("data", () => process.stdout.write(child.pid + "\\n"));
      setInterval(() => {}, 1000);
    `;
    const engine = spawn(process.execPath, ["-e", script], { env, stdio: ["ignore", "pipe", "pipe"] });
    const pid = await new Promise<number>((resolve) => engine.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(isAlive(pid)).toBe(true);
    engine.kill("SIGKILL");
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(isAlive(pid)).toBe(false);
  });
});

/** Alive and not a zombie (an orphan's zombie lingers until whatever adopted it reaps it). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
