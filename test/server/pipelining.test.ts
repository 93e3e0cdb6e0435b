/** @tier unit */
/**
 * The server answers every request it carried out, in order, on both stores: valid writes
 * (POST /profile/sshkeys, POST /tags) pipelined on one connection with bytes that are not a
 * request between or after them. Whatever the server does with the garbage, the writes it
 * acknowledged (2xx answers read off the socket) are exactly the objects stored, every answer
 * before the refusal is the answer of its own request, and the refusal is JSON and comes last.
 *
 * Seeded and bounded (`MGMT_PIPELINE_RUNS`, default 30 connections), loopback only.
 */
import fc from "fast-check";
import { request as httpRequest } from "node:http";
import { call, startTestServer, type TestServer } from "./helpers";
import { exchange, rawRequest } from "./raw-socket";
import { ed25519Key } from "./sshkey-gen";

const RUNS = Number(process.env.MGMT_PIPELINE_RUNS ?? 30);
const SEED = Number(process.env.MGMT_PIPELINE_SEED ?? 27_11_2026);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Bytes that are not (the start of) a valid request, each refused by node's parser (`TOKEN`: the server's token). */
const GARBAGE = [
  "x",
  "\u0000",
  "GET / HTTP/9.9\r\n\r\n",
  "POST /v4/tags HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
  // A request whose headers are fine (and authorised: it waits for its body) and whose chunk framing is not.
  "POST /v4/tags HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
  "GET /v4/profile HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n",
  // What node's own http.request sends for a DELETE with a body and no Content-Length: the body follows as if it were a request.
  '{"label":"a body where a request should start"}',
];

type Step = { kind: "sshkey" | "tag" } | { kind: "garbage"; bytes: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Step>({ kind: "sshkey" }, { kind: "tag" }) },
  { weight: 1, arbitrary: fc.constantFrom(...GARBAGE).map((bytes): Step => ({ kind: "garbage", bytes })) },
);

interface Plan {
  steps: Step[];
  /** Where the bytes are cut into separate writes (fractions of the whole). */
  cuts: number[];
}

const plan: fc.Arbitrary<Plan> = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 2 }),
});

const storedLabels = async (prefix: string): Promise<Set<string>> => {
  const keys = (await call(server, "GET", "/profile/sshkeys?page_size=500")).body as { data: Array<{ label: string }> };
  const tags = (await call(server, "GET", "/tags?page_size=500")).body as { data: Array<{ label: string }> };
  return new Set([...keys.data, ...tags.data].map((o) => o.label).filter((l) => l.startsWith(prefix)));
};

let run = 0;

async function check({ steps, cuts }: Plan): Promise<void> {
  const prefix = `p${run++}-`;
  const writes: string[] = [];
  let bytes = "";
  for (const s of steps) {
    if (s.kind === "garbage") {
      bytes += s.bytes.replace("TOKEN", server.token!);
      continue;
    }
    const label = `${prefix}${writes.length}`;
    writes.push(label);
    bytes +=
      s.kind === "sshkey"
        ? rawRequest("POST", "/v4/profile/sshkeys", server.token, { label, ssh_key: ed25519Key() })
        : rawRequest("POST", "/v4/tags", server.token, { label });
  }
  // A connection that ends cleanly after its writes asks to be closed.
  if (steps.at(-1)!.kind !== "garbage") bytes += "GET /v4/openapi.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  const whole = Buffer.from(bytes);
  const at = [...new Set(cuts.map((c) => Math.floor(c * whole.length)))].sort((a, b) => a - b);
  const chunks = [0, ...at].map((from, i) => whole.subarray(from, [...at, whole.length][i])).filter((c) => c.length > 0);

  const { responses, rest } = await exchange(server.port, chunks);
  expect(rest).toBe("");
  // The writes before the first garbage are all carried out and answered, each by its own answer.
  const firstGarbage = steps.findIndex((s) => s.kind === "garbage");
  const before = (firstGarbage < 0 ? steps : steps.slice(0, firstGarbage)).length;
  expect(responses.length).toBeGreaterThanOrEqual(before);
  const acknowledged = new Set<string>();
  responses.slice(0, before).forEach((res, i) => {
    expect([writes[i], res.status]).toEqual([writes[i], 200]);
    expect((JSON.parse(res.body) as { label: string }).label).toBe(writes[i]);
    acknowledged.add(writes[i]!);
  });
  if (firstGarbage >= 0) {
    // Then one refusal, in the API's error shape, and nothing after it.
    expect(responses.slice(before).map((r) => r.status)).toEqual([400]);
    expect(JSON.parse(responses[before]!.body)).toEqual({ errors: [{ reason: "Bad request" }] });
  }
  expect(await storedLabels(prefix)).toEqual(acknowledged);
}

test("acknowledged writes are exactly the stored objects, whatever follows them on the connection", async () => {
  await fc.assert(fc.asyncProperty(plan, check), { numRuns: RUNS, seed: SEED, endOnFailure: true });
});

test("a write followed by one stray byte in the same packet: its 200 first, then the 400", async () => {
  for (let i = 0; i < 10; i++) {
    const label = `stray-${i}`;
    const { responses } = await exchange(server.port, [rawRequest("POST", "/v4/profile/sshkeys", server.token, { label, ssh_key: ed25519Key() }) + "x"]);
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
    expect(await storedLabels(label)).toEqual(new Set([label]));
  }
});

test("node's http.request: a DELETE written with a body and no Content-Length gets the DELETE's own answer", async () => {
  const created = await call(server, "POST", "/profile/sshkeys", { json: { label: "deleted by node", ssh_key: ed25519Key() } });
  const id = (created.body as { id: number }).id;
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method: "DELETE",
        path: `/v4/profile/sshkeys/${id}`,
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    // Written before end: node frames a DELETE body neither by length nor in chunks, so it reads as a second request.
    req.write("{}");
    req.end();
  });
  expect(status).toBe(200);
  expect((await call(server, "GET", `/profile/sshkeys/${id}`)).status).toBe(404);
});
