import { parseDuration, parseRfc3339, sameInstant, toApiTimestamp } from "../../src/provider/timestamps";

describe("RFC 3339 instants", () => {
  it("reads offsets, fractions and lower-case separators as the same instants Date does", () => {
    for (const text of ["2030-01-01T00:00:00Z", "2030-01-01T09:30:00+09:30", "2029-12-31T19:00:00.250-05:00", "2030-06-15t12:00:00z"]) {
      expect(parseRfc3339(text)).toBe(Date.parse(text.toUpperCase()));
    }
  });

  it("reads years below 100, which the engines hand over while validating", () => {
    expect(parseRfc3339("0000-01-01T00:00:00Z")).toBe(Date.UTC(2000, 0, 1) - 2000 * 365.2425 * 86_400_000);
    expect(new Date(parseRfc3339("0042-03-04T05:06:07Z")!).toISOString()).toBe("0042-03-04T05:06:07.000Z");
  });

  it("refuses what is not one real moment with an offset", () => {
    for (const text of ["2030-01-01T00:00:00", "2030-02-30T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T00:00:00+25:00", "2030-01-01 00:00:00Z"]) {
      expect(parseRfc3339(text)).toBeUndefined();
    }
  });

  it("compares instants in whole seconds, the API's precision", () => {
    expect(sameInstant("2030-01-01T09:00:00+09:00", "2030-01-01T00:00:00Z")).toBe(true);
    expect(sameInstant("2030-01-01T00:00:00.900Z", "2030-01-01T00:00:00Z")).toBe(true);
    expect(sameInstant("2030-01-01T00:00:01Z", "2030-01-01T00:00:00Z")).toBe(false);
    expect(toApiTimestamp(Date.parse("2030-01-01T09:00:00.5+09:00"))).toBe("2030-01-01T00:00:00");
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
