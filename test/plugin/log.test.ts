/** @tier unit */
import { logThreshold, stderrLogger } from "../../src/plugin/log";

describe("the plugin's log level, read as the engines read it", () => {
  it("follows TF_LOG_PROVIDER, then TF_LOG; any other value means trace", () => {
    expect(logThreshold({ TF_LOG: "DEBUG" })).toBe("debug");
    expect(logThreshold({ TF_LOG: "info", TF_LOG_PROVIDER: "ERROR" })).toBe("error");
    expect(logThreshold({ TF_LOG: "json" })).toBe("trace");
    expect(logThreshold({ TF_LOG_PROVIDER: " Trace " })).toBe("trace");
  });

  it("writes only warnings and errors when the engine logs nothing", () => {
    expect(logThreshold({})).toBe("warn");
    expect(logThreshold({ TF_LOG: "" })).toBe("warn");
    expect(logThreshold({ TF_LOG: "off" })).toBe("warn");
  });

  it("drops the lines below the threshold before formatting them", () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const quiet = stderrLogger({});
      quiet("debug", "request", { path: "/v4/profile" });
      quiet("info", "configured");
      quiet("warn", "slow answer");
      const chatty = stderrLogger({ TF_LOG: "debug" });
      chatty("trace", "frame");
      chatty("debug", "request");
    } finally {
      spy.mockRestore();
    }
    expect(written.map((line) => JSON.parse(line) as Record<string, unknown>).map((l) => [l["@level"], l["@message"]])).toEqual([
      ["warn", "slow answer"],
      ["debug", "request"],
    ]);
  });
});
