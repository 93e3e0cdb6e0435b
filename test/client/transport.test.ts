/** @tier unit */
/**
 * The client's transport (its undici Pool) against a real node:http server
 * that counts its connections and can cut an answer short.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MgmtClient, NetworkError } from "../../src/client";
import { PROFILE } from "./fixtures";

const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ9w0vL3ePqBvIoGgQ1d0Ck4i2H3mVdQv2zJk0eY4kOs";

let server: Server;
let url: string;
let connections: number;
let handle: (req: IncomingMessage, body: string, res: ServerResponse) => void;

beforeEach(async () => {
  connections = 0;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v4`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

test("requests one after another share one connection", async () => {
  handle = (_req, _body, res) => json(res, 200, PROFILE);
  const client = new MgmtClient({ url, token: "t" });
  for (let i = 0; i < 3; i++) await expect(client.getProfile()).resolves.toEqual(PROFILE);
  await client.close();
  expect(connections).toBe(1);
});

test("a JSON body with multi-byte characters arrives whole", async () => {
  let received: unknown;
  handle = (_req, body, res) => {
    received = JSON.parse(body);
    json(res, 200, { id: 1, label: "clé ✓", ssh_key: ED25519, created: "2024-05-01T10:00:00" });
  };
  const client = new MgmtClient({ url, token: "t" });
  await expect(client.createSshKey({ label: "clé ✓", ssh_key: ED25519 })).resolves.toMatchObject({ label: "clé ✓" });
  await client.close();
  expect(received).toEqual({ label: "clé ✓", ssh_key: ED25519 });
});

describe("an answer cut short", () => {
  /** Promises 1000 bytes, sends a few, drops the connection. */
  const cut = (_req: IncomingMessage, _body: string, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"username":');
    setImmediate(() => res.socket?.destroy());
  };

  test("is a lost connection, never a parsed body, and a POST is not repeated", async () => {
    let seen = 0;
    handle = (req, body, res) => {
      seen++;
      cut(req, body, res);
    };
    const client = new MgmtClient({ url, token: "t" });
    const err = await client.createSshKey({ ssh_key: ED25519 }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("network");
    expect(seen).toBe(1);
  });

  test("a GET is asked again and answered", async () => {
    let seen = 0;
    handle = (req, body, res) => (++seen === 1 ? cut(req, body, res) : json(res, 200, PROFILE));
    const client = new MgmtClient({ url, token: "t", sleep: async () => {} });
    await expect(client.getProfile()).resolves.toEqual(PROFILE);
    await client.close();
    expect(seen).toBe(2);
  });
});

test("close() lets a request in flight finish, then refuses new ones", async () => {
  let answer: (() => void) | undefined;
  const arrived = new Promise<void>((resolve) => {
    handle = (_req, _body, res) => {
      answer = () => json(res, 200, PROFILE);
      resolve();
    };
  });
  const client = new MgmtClient({ url, token: "t" });
  const inFlight = client.getProfile();
  await arrived;
  const closed = client.close();
  answer!();
  await expect(inFlight).resolves.toEqual(PROFILE);
  await closed;
  const err = await client.getProfile().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(NetworkError);
  expect((err as NetworkError).kind).toBe("fatal");
});
