/** @tier unit */
/**
 * `POST /profile/sshkeys` given a private key instead of the public one: a 400 naming `ssh_key` that
 * says it is a private key, echoes no part of it, and stores nothing.
 */
import { ErrorBody, SshKey, paginated } from "../../src/contract";
import { call, startTestServer, type TestServer } from "./helpers";
import { PRIVATE_KEY_FORMATS, markers, privateKey } from "../support/private-keys";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test.each(PRIVATE_KEY_FORMATS)("a %s private key is refused without being echoed", async (format) => {
  const key = privateKey(format);
  const res = await call(server, "POST", "/profile/sshkeys", { json: { label: "runner", ssh_key: key } });
  expect(res.status).toBe(400);
  const { errors } = ErrorBody.parse(res.body);
  expect(errors).toEqual([{ field: "ssh_key", reason: expect.stringMatching(/^this is an? .*private key, which must stay secret: .*\.pub file/) }]);
  const answered = JSON.stringify(res.body);
  for (const m of markers(key)) expect(answered).not.toContain(m);

  const listed = paginated(SshKey).parse((await call(server, "GET", "/profile/sshkeys")).body);
  expect(listed.data.filter((k) => k.label === "runner")).toEqual([]);
});
