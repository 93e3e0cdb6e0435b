/** @tier unit */
/**
 * Provider functions through the provider server, unconfigured (the engines call functions
 * before, or without, ConfigureProvider). Fingerprints are ssh-keygen's (`ssh-keygen -lf`).
 */
import { MgmtClient } from "../../src/client";
import { createProvider } from "../../src/provider";
import { silentLogger, startServer } from "../../src/server";

const provider = createProvider({ env: {} });
const call = (name: string, ...args: string[]) => provider.callFunction(name, args);

const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAID3iYkxQ8X2JM3dpXbmZgqONUsxbADkm3/WOQ4dBKetQ ann@laptop";
const RSA =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDjYJ1Q2b6gmcduPn/N4tLOnnAoYb38zBP2sbr6G880oufuLa1SY9RqNOTAFX1ahDOlXp3WpCJ8fYL4WRROzwhQ9EAM2zdOZq+hIQOtGN4EVHe7YqlP3zmcbJkhdhcWzG29yZvdsFRaqkThcL9EpOUJdrSN05qaAm1Xa8l369PhpQ==";

describe("ssh_key_fingerprint", () => {
  test.each([
    [ED25519, "SHA256:zJCaaHuO7tpRrw5lMEaxApgdOl8t/7coZOfnd/5CJmE"],
    [RSA, "SHA256:a5/OF2me0OKNKq8A/whIqQ9v1SNuvVvJ2JsjOeNRE50"],
  ])("is ssh-keygen's for %#", async (key, fingerprint) => {
    expect(await call("ssh_key_fingerprint", key)).toEqual({ result: fingerprint });
  });

  test("ignores the comment and surrounding whitespace", async () => {
    const bare = ED25519.split(" ").slice(0, 2).join(" ");
    expect(await call("ssh_key_fingerprint", `  ${bare}\n`)).toEqual(await call("ssh_key_fingerprint", ED25519));
  });

  test.each([
    ["", "SSH key must be of the form '<algorithm> <base64 key> [comment]'"],
    ["ssh-foo AAAA", "SSH key algorithm 'ssh-foo' is not supported"],
    ["ssh-ed25519 not*base64", "SSH key data is not valid base64"],
    [`ssh-rsa ${ED25519.split(" ")[1]}`, "SSH key type 'ssh-rsa' does not match the key data, which is 'ssh-ed25519'"],
  ])("refuses %j, naming the argument", async (key, text) => {
    const answer = await call("ssh_key_fingerprint", key);
    expect(answer).toMatchObject({ error: { argument: 0 } });
    expect("error" in answer && answer.error.text).toContain(text);
  });
});

describe("ssh_key_normalize", () => {
  test("keeps algorithm and base64 only", async () => {
    expect(await call("ssh_key_normalize", `\t${ED25519.replace(" ", "   ")}  `)).toEqual({ result: ED25519.split(" ").slice(0, 2).join(" ") });
  });

  test("refuses a key that is not one", async () => {
    expect(await call("ssh_key_normalize", "hello")).toMatchObject({ error: { argument: 0 } });
  });
});

describe("scopes_normalize", () => {
  test.each([
    ["*", "*"],
    ["  *  ", "*"],
    ["account:read_only account:read_write", "account:read_write"],
    ["events:read_only account:read_write events:read_only", "events:read_only account:read_write"],
    ["account:read_write account:read_only", "account:read_write"],
  ])("%j is stored as %j", async (scopes, stored) => {
    expect(await call("scopes_normalize", scopes)).toEqual({ result: stored });
  });

  test.each([
    ["", "Scopes must not be empty"],
    ["* account:read_only", "'*' cannot be combined with other scopes"],
    ["account:write", "'account:write' is not a valid scope"],
  ])("refuses %j, naming the argument", async (scopes, reason) => {
    expect(await call("scopes_normalize", scopes)).toEqual({ error: { text: expect.stringContaining(reason), argument: 0 } });
  });
});

test("an unknown function is an error naming the ones there are", async () => {
  const answer = await call("nope", "x");
  expect("error" in answer && answer.error.text).toBe('This provider has no function "nope"; it has ssh_key_fingerprint, ssh_key_normalize, scopes_normalize.');
});

test("scopes_normalize answers what the API stores", async () => {
  const server = await startServer({ logger: silentLogger });
  const client = new MgmtClient({ url: server.url, token: server.token! });
  try {
    for (const scopes of ["events:read_only account:read_write events:read_only", "account:read_only account:read_write", "*"]) {
      const stored = (await client.createToken({ label: "normalize", scopes })).scopes;
      expect(await call("scopes_normalize", scopes)).toEqual({ result: stored });
    }
  } finally {
    await client.close();
    await server.close();
  }
});
