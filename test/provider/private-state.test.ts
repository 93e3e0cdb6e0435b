/** @tier unit */
/** Private state as the engine carries it: bytes in, bytes out, never an error for bytes another version wrote. */
import { PrivateState } from "../../src/provider/framework/private-state";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe("PrivateState", () => {
  it("hands the engine's own bytes back when nothing was set", () => {
    const given = bytes('{"other":1}');
    const p = PrivateState.decode(given);
    expect(p.get("other")).toBe(1);
    expect(p.encode(given)).toBe(given);
    expect(PrivateState.decode(undefined).encode(undefined)).toBeUndefined();
  });

  it("keeps the other keys when one is set", () => {
    const p = PrivateState.decode(bytes('{"other":1,"at":"x"}'));
    p.set("at", "2026-11-23T00:00:00.000Z");
    expect(JSON.parse(text(p.encode(undefined))!)).toEqual({ other: 1, at: "2026-11-23T00:00:00.000Z" });
  });

  it.each(["", "not json", "[1,2]", "null", '"text"'])("reads %j as empty", (raw) => {
    const p = PrivateState.decode(bytes(raw));
    expect(p.get("at")).toBeUndefined();
    p.set("at", 1);
    expect(text(p.encode(bytes(raw)))).toBe('{"at":1}');
  });
});
