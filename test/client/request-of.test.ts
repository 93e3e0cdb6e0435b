/** @tier unit */
/** What a call sends before any attempt (`requestOf`, the client's first phase): path and query, body, headers. */
import { requestOf } from "../../src/client/http";

const UA = "terraform-provider-mgmt/test";

test("a JSON body is sent as JSON, under the caller's headers over accept and user-agent", () => {
  expect(requestOf({ path: "/profile/sshkeys", query: { page: 2 }, body: { label: "k" }, headers: { "x-filter": "{}" } }, UA)).toEqual({
    path: "/profile/sshkeys?page=2",
    body: '{"label":"k"}',
    headers: { accept: "application/json", "user-agent": UA, "x-filter": "{}", "content-type": "application/json" },
  });
});

test("raw bytes go with their own content type; no body, no content type", () => {
  const data = new Uint8Array([1, 2, 3]);
  expect(requestOf({ path: "/x", rawBody: { contentType: "image/png", data } }, UA)).toMatchObject({ body: data, headers: { "content-type": "image/png" } });
  expect(requestOf({ path: "/x" }, UA).headers).not.toHaveProperty("content-type");
});

test("refuses a path outside the root and a call with both kinds of body", () => {
  expect(() => requestOf({ path: "profile" }, UA)).toThrow("path must start with '/': profile");
  expect(() => requestOf({ path: "/x", body: {}, rawBody: { contentType: "image/png", data: new Uint8Array() } }, UA)).toThrow(
    "a request has a JSON body or a raw body, not both",
  );
});
