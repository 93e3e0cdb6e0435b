/** @tier unit */
import { formatDay, formatTimestamp, parseDateTimeInput, parseDay, parseInstant, parseRfc3339, parseTimestamp } from "../../src/contract/timestamps";
import { DateTimeInput } from "../../src/contract";

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
    for (const text of [
      "2030-01-01T00:00:00",
      "2030-02-30T00:00:00Z",
      "2030-01-01T24:00:00Z",
      "2030-01-01T00:00:00+25:00",
      "2030-01-01 00:00:00Z",
      "2030-01-01T00:00:00+0900",
    ]) {
      expect(parseRfc3339(text)).toBeUndefined();
    }
  });
});

describe("the wire form", () => {
  it("is UTC in whole seconds without an offset, from a Date or milliseconds, and reads back", () => {
    expect(formatTimestamp(Date.parse("2030-01-01T09:00:00.5+09:00"))).toBe("2030-01-01T00:00:00");
    expect(formatTimestamp(new Date("2030-01-01T00:00:00.999Z"))).toBe("2030-01-01T00:00:00");
    expect(parseTimestamp("2030-01-01T00:00:00").getTime()).toBe(Date.UTC(2030, 0, 1));
  });
});

describe("a date-time a client sends", () => {
  it("is read as UTC without an offset, and with one is moved to UTC; a fraction is dropped", () => {
    expect(parseDateTimeInput("2030-01-01T00:00:00")).toBe("2030-01-01T00:00:00");
    expect(parseDateTimeInput("2030-01-01T09:00:00+09:00")).toBe("2030-01-01T00:00:00");
    expect(parseDateTimeInput("2030-01-01T09:00:00+0900")).toBe("2030-01-01T00:00:00");
    expect(parseDateTimeInput("2029-12-31T19:00:00.750-05:00")).toBe("2030-01-01T00:00:00");
    expect(parseDateTimeInput("2030-01-01T00:00:00Z")).toBe("2030-01-01T00:00:00");
  });

  it("refuses what names no real moment or what the wire form cannot show", () => {
    for (const text of [
      "2030-02-30T00:00:00",
      "2030-01-01T24:00:00",
      "2030-01-01T00:60:00",
      "2030-01-01T00:00:00+24:00",
      "2030-01-01 00:00:00",
      "2030-01-01t00:00:00z",
      "0000-01-01T00:00:00+01:00",
      "9999-12-31T23:00:00-02:00",
      "",
    ]) {
      expect(parseDateTimeInput(text)).toBeUndefined();
    }
  });

  it("is what the contract's DateTimeInput accepts, with an error naming the form otherwise", () => {
    expect(DateTimeInput.parse("2030-01-01T09:00:00+09:00")).toBe("2030-01-01T00:00:00");
    const refused = DateTimeInput.safeParse("2030-02-30T00:00:00");
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe("must be a date-time such as 2030-01-01T00:00:00 (UTC)");
  });
});

describe("days and instants as reports read them", () => {
  it("names the UTC day of an instant, whatever offset it was written with", () => {
    expect(formatDay(parseRfc3339("2030-01-01T01:00:00+02:00")!)).toBe("2029-12-31");
    expect(formatDay(new Date(Date.UTC(2030, 5, 15, 23, 59, 59)))).toBe("2030-06-15");
  });

  it("reads a real calendar day as its first instant in UTC, and nothing else", () => {
    expect(parseDay("2026-03-31")).toBe(Date.UTC(2026, 2, 31));
    expect(parseDay("2028-02-29")).toBe(Date.UTC(2028, 1, 29));
    expect(parseDay("0042-01-02")).toBe(parseRfc3339("0042-01-02T00:00:00Z"));
    for (const text of ["2026-02-29", "2026-13-01", "2026-04-31", "2026-3-31", "2026-03-31T00:00:00Z", ""]) expect(parseDay(text)).toBeUndefined();
  });

  it("reads the wire form as UTC and RFC 3339 with its offset, the two forms a token's expiry comes in", () => {
    expect(parseInstant("2030-01-01T00:00:00")).toBe(Date.UTC(2030, 0, 1));
    expect(parseInstant("2030-01-01T09:00:00+09:00")).toBe(Date.UTC(2030, 0, 1));
    for (const text of ["2030-01-01", "soon", "2030-02-30T00:00:00"]) expect(parseInstant(text)).toBeUndefined();
  });
});
