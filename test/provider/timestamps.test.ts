/** @tier unit */
import { parseDuration } from "../../src/contract/timestamps";
import { sameInstant } from "../../src/provider/timestamps";

describe("instants in attributes", () => {
  it("compares instants in whole seconds, the API's precision", () => {
    expect(sameInstant("2030-01-01T09:00:00+09:00", "2030-01-01T00:00:00Z")).toBe(true);
    expect(sameInstant("2030-01-01T00:00:00.900Z", "2030-01-01T00:00:00Z")).toBe(true);
    expect(sameInstant("2030-01-01T00:00:01Z", "2030-01-01T00:00:00Z")).toBe(false);
  });
});

describe("durations", () => {
  it("reads Go-style hours, minutes, seconds and milliseconds", () => {
    expect(parseDuration("2160h")).toBe(2160 * 3_600_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("250ms")).toBe(250);
    for (const bad of ["90d", "1 h", "", "h", "-1h"]) expect(parseDuration(bad)).toBeUndefined();
  });
});
