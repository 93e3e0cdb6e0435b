/** @tier unit */
/** `/tags`: creation over owned objects, the tagged-object view, deletion, restricted users, events. */
import { call, errorBody, startTestServer, type TestServer } from "./helpers";
import { newActor } from "./actors";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.close());

async function seed() {
  const o = server.domain.objects;
  const compute = await o.seedCompute({ label: "web-1", region: "eu-west", tags: ["existing"] });
  const domain = await o.seedDomain({ domain: "example.org", soa_email: "admin@example.org" });
  const volume = await o.seedVolume({ label: "data", compute_id: compute.id });
  const nb = await o.seedNodeBalancer({ label: "lb-1" });
  return { compute, domain, volume, nb };
}

it("creates a tag on objects of every kind and lists what it tags, as {type, data}", async () => {
  const { compute, domain, volume, nb } = await seed();
  const res = await call(server, "POST", "/tags", {
    json: { label: "prod", computes: [compute.id], domains: [domain.id], volumes: [volume.id], nodebalancers: [nb.id] },
  });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ label: "prod" });
  expect((await call(server, "GET", "/tags")).body).toEqual({ data: [{ label: "existing" }, { label: "prod" }], page: 1, pages: 1, results: 2 });

  const tagged = await call(server, "GET", "/tags/prod");
  expect(tagged.status).toBe(200);
  const body = tagged.body as { data: Array<{ type: string; data: Record<string, unknown> }>; results: number };
  expect(body.results).toBe(4);
  expect(body.data.map((d) => d.type)).toEqual(["compute", "domain", "volume", "nodebalancer"]);
  expect(body.data[0]!.data).toMatchObject({
    id: compute.id,
    label: "web-1",
    region: "eu-west",
    hypervisor: "kvm",
    tags: ["existing", "prod"],
    alerts: { cpu: 90, io: expect.any(Number), network_in: expect.any(Number), network_out: expect.any(Number), transfer_quota: expect.any(Number) },
    backups: { schedule: { day: null, window: null } },
    specs: { disk: expect.any(Number), gpus: 0, memory: expect.any(Number), transfer: expect.any(Number) },
    watchdog_enabled: true,
  });
  expect(body.data[1]!.data).toMatchObject({
    id: domain.id,
    domain: "example.org",
    type: "master",
    status: "active",
    soa_email: "admin@example.org",
    tags: ["prod"],
  });
  expect(body.data[2]!.data).toMatchObject({
    id: volume.id,
    label: "data",
    compute_id: compute.id,
    compute_label: "web-1",
    filesystem_path: "/dev/disk/by-id/scsi-0Vendor_Volume_data",
    status: "active",
    tags: ["prod"],
  });
  expect(body.data[3]!.data).toMatchObject({
    id: nb.id,
    label: "lb-1",
    client_conn_throttle: 0,
    transfer: { in: null, out: null, total: null },
    tags: ["prod"],
  });
});

it("a tag with no objects is fine; labels are 3..50 characters and unique", async () => {
  expect((await call(server, "POST", "/tags", { json: { label: "abc" } })).status).toBe(200);
  expect((await call(server, "GET", "/tags/abc")).body).toEqual({ data: [], page: 1, pages: 1, results: 0 });
  expect((await call(server, "POST", "/tags", { json: { label: "x".repeat(50) } })).status).toBe(200);
  for (const label of ["ab", "x".repeat(51)]) {
    expect((await call(server, "POST", "/tags", { json: { label } })).body).toEqual(errorBody("Length must be between 3 and 50 characters.", "label"));
  }
  expect((await call(server, "POST", "/tags", { json: {} })).body).toEqual(errorBody("label is required", "label"));
  expect((await call(server, "POST", "/tags", { json: { label: "abc", computes: ["1"] } })).status).toBe(400);
  expect((await call(server, "POST", "/tags", { json: { label: "abc" } })).body).toEqual(errorBody("A tag with this label already exists", "label"));
});

it("creates no tag when any listed object is not the caller's to write", async () => {
  const { compute } = await seed();
  const other = await server.store.accounts.insert({ euuid: "OTHER-TAGS", active_since: "2025-01-01T00:00:00" });
  const theirs = await server.domain.objects.seedCompute({ label: "theirs", accountId: other.id });
  for (const computes of [
    [compute.id, theirs.id],
    [compute.id, 9999],
  ]) {
    const res = await call(server, "POST", "/tags", { json: { label: "nope", computes } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ errors: [{ field: "computes.1", reason: expect.stringContaining("read_write") }] });
  }
  expect((await call(server, "GET", "/tags/nope")).status).toBe(404);
  const got = (await call(server, "GET", "/tags/existing")).body as { data: Array<{ data: { tags: string[] } }> };
  expect(got.data[0]!.data.tags).toEqual(["existing"]);
});

it("delete removes the tag from every object", async () => {
  const { compute, volume } = await seed();
  await call(server, "POST", "/tags", { json: { label: "gone soon", computes: [compute.id], volumes: [volume.id] } });
  expect((await call(server, "DELETE", "/tags/gone%20soon")).body).toEqual({});
  expect((await call(server, "GET", "/tags/gone%20soon")).status).toBe(404);
  expect((await call(server, "DELETE", "/tags/gone%20soon")).status).toBe(404);
  const still = (await call(server, "GET", "/tags/existing")).body as { data: Array<{ data: { tags: string[] } }> };
  expect(still.data[0]!.data.tags).toEqual(["existing"]);
  expect((await call(server, "GET", "/tags")).body).toMatchObject({ data: [{ label: "existing" }] });
});

it("is for unrestricted users only", async () => {
  await seed();
  const { token } = await newActor(server, { restricted: true });
  for (const [method, path, json] of [
    ["GET", "/tags", undefined],
    ["POST", "/tags", { label: "mine" }],
    ["GET", "/tags/existing", undefined],
    ["DELETE", "/tags/existing", undefined],
  ] as const) {
    const res = await call(server, method, path, { token, json });
    expect(res.status).toBe(403);
  }
  expect((await call(server, "GET", "/tags/existing")).status).toBe(200);
});

it("records tag_create and tag_delete", async () => {
  await call(server, "POST", "/tags", { json: { label: "evt" } });
  await call(server, "DELETE", "/tags/evt");
  const events = (await call(server, "GET", "/account/events")).body as { data: Array<{ action: string; entity: unknown }> };
  expect(events.data.map((e) => e.action)).toEqual(["tag_delete", "tag_create"]);
  expect(events.data[0]!.entity).toEqual({ id: "evt", label: "evt", type: "tag", url: "/v4/tags/evt" });
});

it("pages the tagged objects", async () => {
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) ids.push((await server.domain.objects.seedCompute({ label: `node-${i}` })).id);
  await call(server, "POST", "/tags", { json: { label: "many", computes: ids } });
  const page = await call(server, "GET", "/tags/many?page=2&page_size=25");
  expect(page.body).toMatchObject({ page: 2, pages: 2, results: 30 });
  expect((page.body as { data: unknown[] }).data).toHaveLength(5);
});

it("a fresh server with the default fixtures has tagged objects", async () => {
  const seeded = await startTestServer({ defaultFixtures: true });
  try {
    const res = await call(seeded, "GET", "/tags/production");
    expect(res.status).toBe(200);
    const types = (res.body as { data: Array<{ type: string; data: { label?: string; compute_label?: string | null } }> }).data.map((d) => d.type);
    expect(types).toEqual(["compute", "compute", "domain", "volume", "nodebalancer"]);
    const volume = (res.body as { data: Array<{ type: string; data: { compute_label?: string | null } }> }).data[3]!;
    expect(volume.data.compute_label).toBe("web-1");
  } finally {
    await seeded.close();
  }
});
