/**
 * Backpressure per connection (issue 44, item 1): a client that pipelines requests and reads no
 * answer gets at most `maxUnanswered` of them handled at once; the rest wait unhandled and the
 * connection stops reading; every request is still answered, in order, once the client reads;
 * a connection that stays stuck is closed; and what a connection held goes with it. Nothing
 * here measures time: the bounds are counts the gate reports.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { DEFAULT_BACKPRESSURE, gateOf, type ConnectionLoad } from "../../src/server";
import { gateRequests, type BackpressureLimits } from "../../src/server/http/backpressure";
import { splitResponses } from "./raw-socket";
import { startTestServer, type TestServer } from "./helpers";

const LIMITS: BackpressureLimits = { ...DEFAULT_BACKPRESSURE, maxUnanswered: 4, maxWaiting: 100_000 };

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** Resolves once `predicate` holds for a load the gate reports. */
function until(watch: { onChange?: (s: Socket, l: ConnectionLoad) => void }, predicate: (l: ConnectionLoad) => boolean): Promise<ConnectionLoad> {
  return new Promise((resolve) => {
    watch.onChange = (_s, load) => {
      if (predicate(load)) {
        watch.onChange = undefined;
        resolve({ ...load });
      }
    };
  });
}

function readAll(socket: Socket): Promise<Buffer> {
  return new Promise((resolve) => {
    const data: Buffer[] = [];
    socket.on("data", (d: Buffer) => data.push(d));
    socket.on("close", () => resolve(Buffer.concat(data)));
    socket.resume();
  });
}

describe("the gate on a bare node server", () => {
  let server: Server;
  let port: number;
  const held: ServerResponse[] = [];
  let gate: ReturnType<typeof gateRequests>["gate"];
  let hold = true;

  beforeAll(async () => {
    const made = gateRequests((req: IncomingMessage, res: ServerResponse) => {
      res.setHeader("content-type", "text/plain");
      if (hold) held.push(res);
      else res.end(req.url);
    }, LIMITS);
    gate = made.gate;
    server = createServer(made.handle);
    port = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test("no more than maxUnanswered requests run; the others wait, then all are answered in order", async () => {
    const N = 3000;
    const socket = connect(port, "127.0.0.1");
    socket.pause();
    const stopped = until(gate, (l) => l.stopped && l.waiting > 0);
    socket.on("connect", () => {
      for (let i = 0; i < N; i++) socket.write(`GET /${i} HTTP/1.1\r\nHost: x\r\n${i === N - 1 ? "Connection: close\r\n" : ""}\r\n`);
    });
    const atStop = await stopped;
    // The handler keeps every answer open: whatever the client sends, only maxUnanswered were handed to it.
    expect(atStop.started).toBe(LIMITS.maxUnanswered);
    expect(held).toHaveLength(LIMITS.maxUnanswered);

    const reply = readAll(socket);
    hold = false;
    for (const res of held.splice(0)) res.end(res.req.url);
    const { responses, rest } = splitResponses(await reply);
    expect(rest).toBe("");
    expect(responses.map((r) => r.body)).toEqual(Array.from({ length: N }, (_, i) => `/${i}`));
  });

  test("at every moment of a flood that reads nothing, the handled-but-unwritten answers stay within the bound", async () => {
    hold = false;
    const N = 2000;
    const socket = connect(port, "127.0.0.1");
    socket.pause();
    const peaks: number[] = [];
    gate.onChange = (_s, l) => peaks.push(l.unanswered);
    const stuck = new Promise<void>((resolve) =>
      socket.on("connect", () => socket.write(`GET /${"x".repeat(200)} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(N), () => resolve())),
    );
    // The client's write completes only once the server has read it all; reading it all means it also ran every request.
    await stuck;
    const reply = readAll(socket);
    socket.end();
    const { responses } = splitResponses(await reply);
    gate.onChange = undefined;
    expect(responses).toHaveLength(N);
    expect(Math.max(...peaks)).toBeLessThanOrEqual(LIMITS.maxUnanswered);
  });
});

describe("a stuck connection", () => {
  test("is closed after stallMs without progress, and the gate forgets it", async () => {
    const held: ServerResponse[] = [];
    const { handle, gate } = gateRequests((_req, res) => void held.push(res), { ...LIMITS, stallMs: 50 });
    const server = createServer(handle);
    const port = await listen(server);
    try {
      const socket = connect(port, "127.0.0.1");
      let serverSide: Socket | undefined;
      let serverClosed: Promise<unknown> | undefined;
      const stopped = new Promise<void>((resolve) => {
        gate.onChange = (s, l) => {
          if (serverSide === undefined) serverClosed = new Promise((closed) => s.once("close", closed));
          serverSide = s;
          if (l.stopped) resolve();
        };
      });
      socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(LIMITS.maxUnanswered + 1)));
      await stopped;
      await new Promise((resolve) => socket.on("close", resolve).resume());
      expect(serverSide!.destroyed).toBe(true);
      await serverClosed;
      expect(gate.load(serverSide!)).toBeUndefined();
    } finally {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test("that stuffs more than maxWaiting requests into one read is closed at once, unanswered", async () => {
    const { handle } = gateRequests((_req, res) => void res, { ...LIMITS, maxWaiting: 10 });
    const server = createServer(handle);
    const port = await listen(server);
    try {
      const socket = connect(port, "127.0.0.1");
      socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100)));
      const bytes = await readAll(socket);
      expect(bytes.length).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("mgmt serve under a pipelining client that does not read", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test("GET /v4/openapi.json pipelined 600 times: at most maxUnanswered handled at once, every answer delivered once read", async () => {
    const N = 600;
    const gate = gateOf(server.app.server)!;
    const peaks: ConnectionLoad[] = [];
    gate.onChange = (_s, l) => peaks.push({ ...l });
    const socket = connect(server.port, "127.0.0.1");
    socket.pause();
    const stopped = new Promise<void>((resolve) => {
      const watch = gate.onChange!;
      gate.onChange = (s, l) => {
        watch(s, l);
        if (l.stopped) resolve();
      };
    });
    socket.on("connect", () =>
      socket.write(
        "GET /v4/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(N) + "GET /v4/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      ),
    );
    await stopped;
    const { responses, rest } = splitResponses(await readAll(socket));
    gate.onChange = undefined;
    expect(rest).toBe("");
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: N + 1 }, () => 200));
    expect(Math.max(...peaks.map((p) => p.unanswered))).toBeLessThanOrEqual(DEFAULT_BACKPRESSURE.maxUnanswered);
    expect(peaks.some((p) => p.waiting > 0)).toBe(true);
  });
});
