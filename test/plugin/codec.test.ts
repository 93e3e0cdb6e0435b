/** @tier unit */
import { CodecError, decodeJsonValue, decodeValue, encodeTypeJson, encodeValue } from "../../src/plugin/codec";
import { Unknown, type DynamicValue, type TfType, type TfValue } from "../../src/provider/framework/value";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const str = (s: string): string => Buffer.from(s, "utf8").toString("hex");
const dyn = (type: TfType, value: TfValue): DynamicValue => ({ kind: "dynamic", type, value });

const greeting: TfType = ["object", { greeting: "string" }];
const ab: TfType = ["object", { a: "string", b: "string" }];

interface Vector {
  readonly name: string;
  readonly hex: string;
  readonly type: TfType;
  readonly value: TfValue;
  /** Set where our encoder legitimately writes other bytes than go-cty (see the test names). */
  readonly ours?: string;
}

/**
 * The golden vectors of hashicorp/terraform-plugin-go tftypes/value_msgpack_test.go
 * (TestValueFromMsgPack): the bytes go-cty writes and Terraform sends, with the value each
 * one stands for, restated in this codec's value model.
 */
const golden: readonly Vector[] = [
  { name: "hello-string", hex: "a568656c6c6f", type: "string", value: "hello" },
  { name: "empty-string", hex: "a0", type: "string", value: "" },
  { name: "null-string", hex: "c0", type: "string", value: null },
  { name: "unknown-string", hex: "d40000", type: "string", value: Unknown },
  { name: "true-bool", hex: "c3", type: "bool", value: true },
  { name: "false-bool", hex: "c2", type: "bool", value: false },
  { name: "null-bool", hex: "c0", type: "bool", value: null },
  { name: "unknown-bool", hex: "d40000", type: "bool", value: Unknown },
  { name: "int-number", hex: "01", type: "number", value: 1 },
  { name: "int64-positive-number", hex: "cf7fffffffffffffff", type: "number", value: 9223372036854775807n },
  { name: "int64-negative-number", hex: "d38000000000000000", type: "number", value: -9223372036854775808n },
  // go-cty writes uint64 max as text because it does not fit an int64; we have a uint64
  // form for it, which Terraform reads as the same number.
  { name: "uint64-number", hex: "b4" + str("18446744073709551615"), type: "number", value: 18446744073709551615n, ours: "cfffffffffffffffff" },
  { name: "float-number", hex: "cb3ff8000000000000", type: "number", value: 1.5 },
  { name: "float64-positive-number", hex: "cb7fefffffffffffff", type: "number", value: BigInt(Number.MAX_VALUE) },
  { name: "float64-negative-number (smallest subnormal)", hex: "cb0000000000000001", type: "number", value: Number.MIN_VALUE },
  { name: "big-number", hex: "d964" + str("9".repeat(100)), type: "number", value: BigInt("9".repeat(100)) },
  // go-cty's 0.8 is an exact decimal; ours is the nearest double, so it goes out as float64.
  { name: "awkward-fraction-number", hex: "a3302e38", type: "number", value: 0.8, ours: "cb3fe999999999999a" },
  { name: "positive-infinity-number", hex: "cb7ff0000000000000", type: "number", value: Infinity },
  { name: "negative-infinity-number", hex: "cbfff0000000000000", type: "number", value: -Infinity },
  { name: "dynamic-bool", hex: "92c40622626f6f6c22c3", type: "dynamic", value: dyn("bool", true) },
  { name: "dynamic-list", hex: "92c4115b226c697374222c22737472696e67225d91a568656c6c6f", type: "dynamic", value: dyn(["list", "string"], ["hello"]) },
  {
    name: "dynamic-map",
    hex: "92c4105b226d6170222c22737472696e67225d81a568656c6c6fa568656c6c6f",
    type: "dynamic",
    value: dyn(["map", "string"], { hello: "hello" }),
  },
  { name: "dynamic-number", hex: "92c408226e756d6265722201", type: "dynamic", value: dyn("number", 1) },
  {
    name: "dynamic-object / object-dynamic",
    hex: "81a86772656574696e6792c40822737472696e6722a568656c6c6f",
    type: ["object", { greeting: "dynamic" }],
    value: { greeting: dyn("string", "hello") },
  },
  { name: "dynamic-set", hex: "92c4105b22736574222c22737472696e67225d91a568656c6c6f", type: "dynamic", value: dyn(["set", "string"], ["hello"]) },
  { name: "dynamic-string", hex: "92c40822737472696e6722a568656c6c6f", type: "dynamic", value: dyn("string", "hello") },
  {
    name: "list-dynamic / dynamic-list-string-hello",
    hex: "9192c40822737472696e6722a568656c6c6f",
    type: ["list", "dynamic"],
    value: [dyn("string", "hello")],
  },
  { name: "list-string-hello", hex: "91a568656c6c6f", type: ["list", "string"], value: ["hello"] },
  { name: "list-string-unknown", hex: "91d40000", type: ["list", "string"], value: [Unknown] },
  { name: "list-string-null-string", hex: "91c0", type: ["list", "string"], value: [null] },
  { name: "list-string-null", hex: "c0", type: ["list", "string"], value: null },
  { name: "list-string-empty", hex: "90", type: ["list", "string"], value: [] },
  { name: "set-dynamic", hex: "9192c40822737472696e6722a568656c6c6f", type: ["set", "dynamic"], value: [dyn("string", "hello")] },
  { name: "set-string-hello", hex: "91a568656c6c6f", type: ["set", "string"], value: ["hello"] },
  { name: "set-string-unknown", hex: "91d40000", type: ["set", "string"], value: [Unknown] },
  { name: "set-string-null-string", hex: "91c0", type: ["set", "string"], value: [null] },
  { name: "set-string-empty", hex: "90", type: ["set", "string"], value: [] },
  {
    name: "map-dynamic",
    hex: "81a86772656574696e6792c40822737472696e6722a568656c6c6f",
    type: ["map", "dynamic"],
    value: { greeting: dyn("string", "hello") },
  },
  { name: "map-string-hello", hex: "81a86772656574696e67a568656c6c6f", type: ["map", "string"], value: { greeting: "hello" } },
  { name: "map-string-unknown", hex: "81a86772656574696e67d40000", type: ["map", "string"], value: { greeting: Unknown } },
  { name: "map-string-null", hex: "81a86772656574696e67c0", type: ["map", "string"], value: { greeting: null } },
  { name: "map-string-empty", hex: "80", type: ["map", "string"], value: {} },
  {
    name: "tuple-dynamic",
    hex: "9292c40822737472696e6722a568656c6c6f92c40822737472696e6722a5776f726c64",
    type: ["tuple", ["dynamic", "dynamic"]],
    value: [dyn("string", "hello"), dyn("string", "world")],
  },
  { name: "tuple-string-hello", hex: "91a568656c6c6f", type: ["tuple", ["string"]], value: ["hello"] },
  { name: "tuple-string-unknown", hex: "91d40000", type: ["tuple", ["string"]], value: [Unknown] },
  { name: "tuple-string-null", hex: "91c0", type: ["tuple", ["string"]], value: [null] },
  { name: "tuple-empty", hex: "90", type: ["tuple", []], value: [] },
  { name: "object-string-hello", hex: "81a86772656574696e67a568656c6c6f", type: greeting, value: { greeting: "hello" } },
  { name: "object-string-unknown", hex: "81a86772656574696e67d40000", type: greeting, value: { greeting: Unknown } },
  { name: "object-string-null", hex: "81a86772656574696e67c0", type: greeting, value: { greeting: null } },
  { name: "object-string-multi-null", hex: "82a161c0a162c0", type: ab, value: { a: null, b: null } },
  { name: "object-string-multi-unknown", hex: "82a161d40000a162d40000", type: ab, value: { a: Unknown, b: Unknown } },
  { name: "object-empty", hex: "80", type: ["object", {}], value: {} },
  { name: "string-dynamic-null", hex: "92c40822737472696e6722c0", type: "dynamic", value: dyn("string", null) },
  { name: "dynamic-null", hex: "c0", type: "dynamic", value: null },
  { name: "object-dynamic-null", hex: "81a161c0", type: ["object", { a: "dynamic" }], value: { a: null } },
  { name: "dynamic-unknown", hex: "d40000", type: "dynamic", value: Unknown },
  { name: "dynamic-list-string-null", hex: "9192c40822737472696e6722c0", type: ["list", "dynamic"], value: [dyn("string", null)] },
  { name: "dynamic-list-unknown", hex: "91d40000", type: ["list", "dynamic"], value: [Unknown] },
];

describe("golden vectors (terraform-plugin-go TestValueFromMsgPack)", () => {
  describe.each(golden)("$name", (v) => {
    test("decodes to the expected value", () => {
      expect(decodeValue(bytes(v.hex), v.type)).toEqual(v.value);
    });
    test(v.ours === undefined ? "encodes to the same bytes as go-cty" : "encodes to our documented alternative bytes", () => {
      expect(hex(encodeValue(v.value, v.type))).toBe(v.ours ?? v.hex);
    });
    test("round-trips through our encoder", () => {
      expect(decodeValue(encodeValue(v.value, v.type), v.type)).toEqual(v.value);
    });
  });
});

describe("unknowns", () => {
  test("the encoder writes every unknown as fixext1 type 0", () => {
    expect(hex(encodeValue(Unknown, "string"))).toBe("d40000");
    expect(hex(encodeValue(Unknown, ["object", { a: "string" }]))).toBe("d40000");
    expect(hex(encodeValue(Unknown, "dynamic"))).toBe("d40000");
    // An unknown of a known type inside a dynamic position keeps its type.
    expect(hex(encodeValue(dyn("string", Unknown), "dynamic"))).toBe("92c40822737472696e6722d40000");
  });

  // Refined unknowns (Terraform >= 1.6) are ext 12 whose payload is a map of refinements:
  // 1 nullness, 2 string prefix, 3/4 number bounds, 5/6 collection length bounds.
  const refined = {
    "ext8, not null": "c7030c8101c2",
    "ext8, not null + prefix": "c7070c8201c202a26162",
    "ext8, number bounds": "c70b0c8301c2039201c3049264c2",
    "ext8, collection length bounds": "c7050c8205010603",
    ext16: "c800030c8101c2",
    ext32: "c9000000030c8101c2",
    fixext2: "d50c8101",
    fixext4: "d60c81050a00",
    fixext8: "d70c0102030405060708",
    fixext16: "d80c" + "00".repeat(16),
    "fixext1 with another type code": "d40701",
    "empty ext8": "c70000",
  };
  test.each(Object.entries(refined))("%s decodes as Unknown", (_name, h) => {
    expect(decodeValue(bytes(h), "string")).toBe(Unknown);
    expect(decodeValue(bytes(h), "number")).toBe(Unknown);
    expect(decodeValue(bytes(h), ["list", "string"])).toBe(Unknown);
    expect(decodeValue(bytes(h), "dynamic")).toBe(Unknown);
  });

  test("decoding continues correctly after a refined unknown's payload", () => {
    expect(decodeValue(bytes("93 c7070c8201c202a26162 a178 d50c8101"), ["list", "string"])).toEqual([Unknown, "x", Unknown]);
    expect(decodeValue(bytes("82 a161 c7030c8101c2 a162 a179"), ab)).toEqual({ a: Unknown, b: "y" });
    expect(decodeValue(bytes("92 c40822737472696e6722 c7030c8101c2"), "dynamic")).toEqual(dyn("string", Unknown));
  });
});

describe("numbers", () => {
  test.each([
    ["7f", 127],
    ["00", 0],
    ["ff", -1],
    ["e0", -32],
    ["ccff", 255],
    ["cdffff", 65535],
    ["ceffffffff", 4294967295],
    ["cf0000000000000005", 5],
    ["cf001fffffffffffff", Number.MAX_SAFE_INTEGER],
    ["cf0020000000000000", 9007199254740992n],
    ["cfffffffffffffffff", 18446744073709551615n],
    ["d080", -128],
    ["d18000", -32768],
    ["d280000000", -2147483648],
    ["d3ffffffffffffffff", -1],
    ["d3ffe0000000000001", -Number.MAX_SAFE_INTEGER],
    ["d3ffe0000000000000", -9007199254740992n],
    ["ca3fc00000", 1.5],
    ["cb3fb999999999999a", 0.1],
    ["cb8000000000000000", 0], // -0 is 0, as cty compares them
    ["cb43f0000000000000", 18446744073709551616n], // go-cty writes 2^64 as an exact float64
  ])("msgpack %s decodes to %p", (h, want) => {
    expect(decodeValue(bytes(h), "number")).toEqual(want);
  });

  test.each([
    ["0.8", 0.8],
    ["-0.25", -0.25],
    ["42", 42],
    ["+7", 7],
    ["1e3", 1000],
    ["2.50e1", 25],
    [".5", 0.5],
    ["5.", 5],
    ["-0", 0],
    ["0.000", 0],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
    ["9007199254740993", 9007199254740993n],
    ["12345678901234567890", 12345678901234567890n],
    ["-12345678901234567890", -12345678901234567890n],
    ["1.5e30", 1500000000000000000000000000000n],
    ["123456789012345678901234567890.0", 123456789012345678901234567890n],
    ["Inf", Infinity],
    ["-Inf", -Infinity],
  ])("decimal string %p decodes to %p", (s, want) => {
    expect(decodeValue(encodeValue(s, "string"), "number")).toEqual(want);
  });

  test.each(["abc", "", "1.2.3", "0x10", " 1", "1e", "Infinity", "NaN", "1_000"])("string %p is not a number", (s) => {
    expect(() => decodeValue(encodeValue(s, "string"), "number")).toThrow(/^\(root\): expected number, got string/);
  });

  test("absurdly large decimal exponents are refused instead of expanded", () => {
    expect(() => decodeValue(encodeValue("1e999999999", "string"), "number")).toThrow(/too large/);
  });

  test.each([
    [0, "00"],
    [127, "7f"],
    [128, "cc80"],
    [255, "ccff"],
    [256, "cd0100"],
    [65535, "cdffff"],
    [65536, "ce00010000"],
    [4294967295, "ceffffffff"],
    [4294967296, "cf0000000100000000"],
    [Number.MAX_SAFE_INTEGER, "cf001fffffffffffff"],
    [-1, "ff"],
    [-32, "e0"],
    [-33, "d0df"],
    [-128, "d080"],
    [-129, "d1ff7f"],
    [-32768, "d18000"],
    [-32769, "d2ffff7fff"],
    [-2147483648, "d280000000"],
    [-2147483649, "d3ffffffff7fffffff"],
    [-Number.MAX_SAFE_INTEGER, "d3ffe0000000000001"],
    [-0, "00"],
    [2 ** 60, "cf1000000000000000"],
    [1e20, "cb4415af1d78b58c40"], // beyond uint64, exactly a double
    [1.5, "cb3ff8000000000000"],
    [0.1, "cb3fb999999999999a"],
    [Infinity, "cb7ff0000000000000"],
    [-Infinity, "cbfff0000000000000"],
    [5n, "05"],
    [-5n, "fb"],
    [9223372036854775807n, "cf7fffffffffffffff"],
    [9223372036854775808n, "cf8000000000000000"],
    [18446744073709551615n, "cfffffffffffffffff"],
    [-9223372036854775808n, "d38000000000000000"],
    [18446744073709551616n, "cb43f0000000000000"],
    [-9223372036854775809n, "b4" + str("-9223372036854775809")],
    [12345678901234567890123n, "b7" + str("12345678901234567890123")],
  ])("%p encodes as %s", (n, want) => {
    expect(hex(encodeValue(n, "number"))).toBe(want);
  });

  test("every encoded integer decodes back to the same value", () => {
    const samples: (number | bigint)[] = [0, 1, -1, 31, 32, -33, 200, -200, 70000, -70000, 2 ** 31, -(2 ** 31) - 1, 2 ** 40, -(2 ** 40)];
    samples.push(
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2n ** 53n,
      -(2n ** 53n),
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 64n - 1n,
      2n ** 64n,
      10n ** 30n + 1n,
    );
    for (const n of samples) expect(decodeValue(encodeValue(n, "number"), "number")).toEqual(n);
  });
});

describe("strings, binaries and containers in every msgpack size class", () => {
  test.each([
    [31, "bf"],
    [32, "d920"],
    [255, "d9ff"],
    [256, "da0100"],
    [65535, "daffff"],
    [65536, "db00010000"],
  ])("a %i-byte string uses header %s", (n, header) => {
    const s = "x".repeat(n);
    const out = encodeValue(s, "string");
    expect(hex(out.subarray(0, header.length / 2))).toBe(header);
    expect(out.length).toBe(header.length / 2 + n);
    expect(decodeValue(out, "string")).toBe(s);
  });

  test("strings are UTF-8, and a leading byte order mark survives", () => {
    expect(hex(encodeValue("é", "string"))).toBe("a2c3a9");
    expect(decodeValue(bytes("a2c3a9"), "string")).toBe("é");
    expect(decodeValue(encodeValue("\ufeffx😀", "string"), "string")).toBe("\ufeffx😀");
    expect(() => decodeValue(bytes("a2c328"), "string")).toThrow("(root): string is not valid UTF-8");
    // Non-ASCII text is sized after encoding; the header must still be the smallest.
    expect(hex(encodeValue("é".repeat(11), "string"))).toBe("b6" + "c3a9".repeat(11));
    expect(hex(encodeValue("é".repeat(16), "string"))).toBe("d920" + "c3a9".repeat(16));
    expect(hex(encodeValue("€".repeat(100), "string"))).toBe("da012c" + "e282ac".repeat(100));
    expect(hex(encodeValue("a".repeat(70) + "é", "string"))).toBe("d948" + "61".repeat(70) + "c3a9");
    for (const s of ["é".repeat(11), "x".repeat(64) + "😀", "ü".repeat(40000)]) expect(decodeValue(encodeValue(s, "string"), "string")).toBe(s);
  });

  test.each([
    [15, "9f"],
    [16, "dc0010"],
    [65535, "dcffff"],
    [65536, "dd00010000"],
  ])("a %i-element list uses header %s", (n, header) => {
    const list = Array.from({ length: n }, (_, i) => i % 100);
    const out = encodeValue(list, ["list", "number"]);
    expect(hex(out.subarray(0, header.length / 2))).toBe(header);
    expect(decodeValue(out, ["list", "number"])).toEqual(list);
  });

  test.each([
    [15, "8f"],
    [16, "de0010"],
    [65536, "df00010000"],
  ])("a %i-entry map uses header %s", (n, header) => {
    const map: Record<string, TfValue> = {};
    for (let i = 0; i < n; i++) map[`k${i}`] = true;
    const out = encodeValue(map, ["map", "bool"]);
    expect(hex(out.subarray(0, header.length / 2))).toBe(header);
    expect(decodeValue(out, ["map", "bool"])).toEqual(map);
  });

  test("input may be a view into a larger buffer (protobuf hands out Buffer slices)", () => {
    const big = Buffer.from("ffffff" + "cf7fffffffffffffff" + "ffff", "hex");
    expect(decodeValue(big.subarray(3, 12), "number")).toBe(9223372036854775807n);
  });

  test("wide headers are accepted even when a compact one would do", () => {
    expect(decodeValue(bytes("dc0001 d90178"), ["list", "string"])).toEqual(["x"]);
    expect(decodeValue(bytes("dd00000001 da000178"), ["set", "string"])).toEqual(["x"]);
    expect(decodeValue(bytes("de0001 db00000001 61 01"), ["map", "number"])).toEqual({ a: 1 });
    expect(decodeValue(bytes("df00000001 a161 c3"), ["object", { a: "bool" }])).toEqual({ a: true });
  });

  test("the type half of a dynamic value may be bin8/16/32 or str", () => {
    const attrs: Record<string, TfType> = {};
    for (let i = 0; i < 40; i++) attrs[`attribute_${String(i).padStart(2, "0")}`] = "string";
    const type: TfType = ["object", attrs];
    const json = Buffer.from(encodeTypeJson(type));
    expect(json.length).toBeGreaterThan(255);
    const value = dyn(type, Object.fromEntries(Object.keys(attrs).map((k) => [k, k])));
    const out = encodeValue(value, "dynamic");
    expect(hex(out.subarray(0, 4))).toBe("92c5" + json.length.toString(16).padStart(4, "0"));
    expect(decodeValue(out, "dynamic")).toEqual(value);

    const tail = "a568656c6c6f";
    const typeJson = str('"string"');
    expect(decodeValue(bytes(`92 c6 00000008 ${typeJson} ${tail}`), "dynamic")).toEqual(dyn("string", "hello"));
    expect(decodeValue(bytes(`92 a8 ${typeJson} ${tail}`), "dynamic")).toEqual(dyn("string", "hello"));
    expect(decodeValue(bytes(`92 d9 08 ${typeJson} ${tail}`), "dynamic")).toEqual(dyn("string", "hello"));
  });
});

describe("objects and maps", () => {
  const tags: TfType = ["object", { name: "string", tags: ["list", "string"], count: "number" }];

  test("the encoder writes attributes in sorted order whatever the type's order", () => {
    expect(hex(encodeValue({ b: "x", a: "y" }, ["object", { b: "string", a: "string" }]))).toBe("82a161a179a162a178");
    expect(hex(encodeValue({ name: "n", tags: [], count: 1 }, tags))).toBe(`83a5${str("count")}01a4${str("name")}a16ea4${str("tags")}90`);
  });

  test("the encoder writes a missing attribute as nil", () => {
    expect(hex(encodeValue({ a: "x" }, ab))).toBe("82a161a178a162c0");
    expect(hex(encodeValue({}, ab))).toBe("82a161c0a162c0");
    expect(hex(encodeValue({ a: "x", b: undefined } as unknown as TfValue, ab))).toBe("82a161a178a162c0");
  });

  test("the decoder fills a missing attribute with null", () => {
    expect(decodeValue(bytes("81a161a178"), ab)).toEqual({ a: "x", b: null });
    expect(decodeValue(bytes("80"), ab)).toEqual({ a: null, b: null });
  });

  test("map keys are written in sorted (code point) order", () => {
    expect(hex(encodeValue({ b: 2, a: 1, "😀": 4, "\uffee": 3 }, ["map", "number"]))).toBe(`84a16101a16202a3${str("\uffee")}03a4${str("😀")}04`);
  });

  test("keys that collide with Object.prototype are ordinary keys", () => {
    const value = decodeValue(encodeValue(JSON.parse('{"__proto__":"p","toString":"t"}') as TfValue, ["map", "string"]), ["map", "string"]);
    expect(Object.keys(value as object)).toEqual(["__proto__", "toString"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toBe("p");
    expect(Object.getOwnPropertyDescriptor(value, "toString")?.value).toBe("t");
    // An attribute the type lacks is not found through the prototype chain.
    expect(() => decodeValue(bytes(`81a8${str("toString")}c0`), ab)).toThrow('(root): unsupported attribute "toString"');
    const withToString = ["object", JSON.parse('{"toString":"string"}')] as TfType;
    expect(hex(encodeValue({}, withToString))).toBe(`81a8${str("toString")}c0`);
    expect(decodeValue(bytes("80"), withToString)).toEqual(JSON.parse('{"toString":null}'));
  });

  test("nested objects, lists of objects and maps of lists round-trip", () => {
    const type: TfType = [
      "object",
      {
        id: "string",
        rules: ["list", ["object", { port: "number", cidrs: ["set", "string"], note: "string" }]],
        labels: ["map", ["list", "string"]],
        pair: ["tuple", ["string", "number"]],
        extra: "dynamic",
      },
    ];
    const value: TfValue = {
      id: Unknown,
      rules: [
        { port: 22, cidrs: ["10.0.0.0/8"], note: null },
        { port: 443, cidrs: [], note: Unknown },
      ],
      labels: { env: ["prod"], none: [] },
      pair: ["a", 12345678901234567890n],
      extra: dyn(["object", { x: ["list", "number"] }], { x: [1, 2.5] }),
    };
    expect(decodeValue(encodeValue(value, type), type)).toEqual(value);
  });
});

describe("dynamic values", () => {
  test("null and unknown dynamic go out bare", () => {
    expect(hex(encodeValue(null, "dynamic"))).toBe("c0");
    expect(hex(encodeValue(Unknown, "dynamic"))).toBe("d40000");
  });

  test("a DynamicValue whose own type is dynamic is written as its inner value", () => {
    expect(hex(encodeValue(dyn("dynamic", null), "dynamic"))).toBe("c0");
    expect(hex(encodeValue(dyn("dynamic", dyn("bool", true)), "dynamic"))).toBe("92c40622626f6f6c22c3");
  });

  test("the type JSON written for a dynamic value is go-cty's compact, sorted form", () => {
    const type: TfType = ["object", { z: "bool", a: ["tuple", ["string", ["map", "number"]]] }];
    const out = encodeValue(dyn(type, { z: true, a: ["s", { k: 1 }] }), "dynamic");
    const json = '["object",{"a":["tuple",["string",["map","number"]]],"z":"bool"}]';
    expect(hex(out.subarray(0, 3 + json.length))).toBe("92c4" + json.length.toString(16) + str(json));
  });

  test("a type JSON object with the optional-attributes element is accepted", () => {
    const json = '["object",{"a":"string"},["a"]]';
    expect(decodeValue(bytes(`92c4${json.length.toString(16)}${str(json)}81a161a178`), "dynamic")).toEqual(dyn(["object", { a: "string" }], { a: "x" }));
  });

  test("a plain value in a dynamic position is refused rather than guessed", () => {
    expect(() => encodeValue("hello", "dynamic")).toThrow(
      '(root): expected a DynamicValue {kind: "dynamic", type, value} for a dynamic-typed value, got string',
    );
  });
});

describe("type JSON", () => {
  test.each<[TfType, string]>([
    ["string", '"string"'],
    ["number", '"number"'],
    ["bool", '"bool"'],
    ["dynamic", '"dynamic"'],
    [["list", "string"], '["list","string"]'],
    [["set", ["map", "number"]], '["set",["map","number"]]'],
    [["object", { b: "number", a: ["list", "string"] }], '["object",{"a":["list","string"],"b":"number"}]'],
    [["object", {}], '["object",{}]'],
    [["tuple", ["string", "bool"]], '["tuple",["string","bool"]]'],
    [["tuple", []], '["tuple",[]]'],
  ])("%j is written as %s", (type, json) => {
    expect(Buffer.from(encodeTypeJson(type)).toString("utf8")).toBe(json);
  });

  test("an invalid type is refused, since Terraform crashes on invalid type JSON", () => {
    expect(() => encodeTypeJson("text" as unknown as TfType)).toThrow('(root): invalid type "text"');
    expect(() => encodeTypeJson(["object", { a: ["list"] }] as unknown as TfType)).toThrow('.a: invalid type ["list"]');
    expect(() => encodeTypeJson(["tuple", "string"] as unknown as TfType)).toThrow(CodecError);
  });
});

describe("errors name the path", () => {
  const type: TfType = [
    "object",
    {
      tags: ["list", "string"],
      ratios: ["list", "number"],
      labels: ["map", "string"],
      pair: ["tuple", ["string", "number"]],
      nested: ["object", { a: "string" }],
    },
  ];

  function thrown(f: () => unknown): CodecError {
    try {
      f();
    } catch (err) {
      expect(err).toBeInstanceOf(CodecError);
      return err as CodecError;
    }
    throw new Error("expected a CodecError");
  }

  test("NaN", () => {
    const err = thrown(() => encodeValue({ ratios: [1, 2, NaN] }, type));
    expect(err.message).toBe(".ratios[2]: NaN is not a number Terraform can represent");
    expect(err.path).toEqual([{ attribute: "ratios" }, { index: 2 }]);
    expect(() => decodeValue(bytes("cb7ff8000000000000"), "number")).toThrow("(root): NaN is not a number Terraform can represent");
  });

  test("wrong type when encoding", () => {
    expect(() => encodeValue({ tags: ["a", "b", 3] }, type)).toThrow(".tags[2]: expected string, got number");
    expect(() => encodeValue({ labels: { env: true } }, type)).toThrow('.labels["env"]: expected string, got boolean');
    expect(() => encodeValue({ nested: "x" }, type)).toThrow(".nested: expected object, got string");
    expect(() => encodeValue(1, "bool")).toThrow("(root): expected bool, got number");
    expect(() => encodeValue("1", "number")).toThrow("(root): expected number, got string");
    expect(() => encodeValue({ tags: "a" }, type)).toThrow(".tags: expected list, got string");
    expect(() => encodeValue([Unknown, undefined] as unknown as TfValue, ["list", "string"])).toThrow("[1]: undefined is not a Terraform value");
    // eslint-disable-next-line no-sparse-arrays
    expect(() => encodeValue(["a", , "c"] as unknown as TfValue, ["tuple", ["string", "string", "string"]])).toThrow("[1]: undefined is not a Terraform value");
  });

  test("wrong type when decoding", () => {
    const err = thrown(() => decodeValue(bytes(`81a4${str("tags")}93a161a16203`), type));
    expect(err.message).toBe(".tags[2]: expected string, got msgpack integer");
    expect(err.path).toEqual([{ attribute: "tags" }, { index: 2 }]);
    expect(() => decodeValue(bytes(`81a6${str("labels")}81a3${str("env")}c3`), type)).toThrow('.labels["env"]: expected string, got msgpack bool');
    expect(() => decodeValue(bytes("a161"), "bool")).toThrow("(root): expected bool, got msgpack string");
    expect(() => decodeValue(bytes("c401ff"), "number")).toThrow("(root): expected number, got msgpack binary");
    expect(() => decodeValue(bytes("91a161"), ab)).toThrow("(root): expected object, got msgpack array");
    expect(() => decodeValue(bytes("81a161c0"), ["list", "string"])).toThrow("(root): expected list, got msgpack map");
    expect(() => decodeValue(bytes("a161"), "dynamic")).toThrow("(root): expected a [type, value] array for a dynamic value, got msgpack string");
    expect(() => decodeValue(bytes("93c40822737472696e6722a161c0"), "dynamic")).toThrow(
      "(root): a dynamic value must be a [type, value] array, got 3 elements",
    );
    expect(() => decodeValue(bytes("92c403666f6fc0"), "dynamic")).toThrow("(root): type is not valid JSON");
    expect(() => decodeValue(bytes("92c40522666f6f22c0"), "dynamic")).toThrow('(root): invalid type JSON "foo"');
    expect(() => decodeValue(bytes("8101c0"), ["map", "string"])).toThrow("(root): map keys must be strings, got msgpack integer");
  });

  test("extra object attribute", () => {
    expect(() => encodeValue({ nested: { a: "x", extra: "y" } }, type)).toThrow(
      '.nested: unsupported attribute "extra": the object type has no such attribute',
    );
    const err = thrown(() => decodeValue(bytes(`81a6${str("nested")}82a161a178a5${str("extra")}a179`), type));
    expect(err.message).toBe('.nested: unsupported attribute "extra": the object type has no such attribute');
    expect(err.path).toEqual([{ attribute: "nested" }]);
    expect(() => decodeValue(bytes("82a161a178a161a179"), ab)).toThrow('(root): duplicate attribute "a"');
  });

  test("tuple length mismatch", () => {
    expect(() => encodeValue({ pair: ["a", 1, 2] }, type)).toThrow(".pair: expected a tuple of 2 elements, got 3");
    expect(() => decodeValue(bytes(`81a4${str("pair")}91a161`), type)).toThrow(".pair: expected a tuple of 2 elements, got 1");
    expect(() => decodeValue(bytes("90"), ["tuple", ["string"]])).toThrow("(root): expected a tuple of 1 element, got 0");
  });

  test("malformed msgpack", () => {
    expect(() => decodeValue(bytes(""), "string")).toThrow("(root): msgpack input ends in the middle of a value");
    expect(() => decodeValue(bytes("a56865"), "string")).toThrow("(root): msgpack input ends in the middle of a value");
    expect(() => decodeValue(bytes("c7050c8101"), "string")).toThrow("(root): msgpack input ends in the middle of a value");
    expect(() => decodeValue(bytes("c1"), "string")).toThrow("(root): byte 0xc1 does not start a msgpack value");
    expect(() => decodeValue(bytes("01 02"), "number")).toThrow("(root): 1 unexpected bytes after the msgpack value");
    expect(() => decodeValue(bytes("ddffffffff01"), ["list", "number"])).toThrow("(root): msgpack array claims 4294967295 elements but only 1 bytes remain");
    expect(() => decodeValue(bytes("92a161"), ["list", "string"])).toThrow("[1]: msgpack input ends in the middle of a value");
  });
});

describe("decodeJsonValue", () => {
  const type: TfType = [
    "object",
    {
      id: "string",
      size: "number",
      enabled: "bool",
      tags: ["set", "string"],
      labels: ["map", "string"],
      pair: ["tuple", ["string", "number"]],
      nested: ["list", ["object", { a: "string", b: "number" }]],
      anything: "dynamic",
    },
  ];

  test("missing attributes become null; values convert against the type", () => {
    const json = JSON.parse(`{
      "id": "abc", "size": 3, "tags": ["x"], "labels": {"env": "prod"}, "pair": ["p", "12345678901234567890"],
      "nested": [{"a": "x"}], "anything": {"value": ["a", 1], "type": ["tuple", ["string", "number"]]}
    }`);
    expect(decodeJsonValue(json, type)).toEqual({
      id: "abc",
      size: 3,
      enabled: null,
      tags: ["x"],
      labels: { env: "prod" },
      pair: ["p", 12345678901234567890n],
      nested: [{ a: "x", b: null }],
      anything: dyn(["tuple", ["string", "number"]], ["a", 1]),
    });
  });

  test("numbers may be JSON numbers or decimal strings", () => {
    expect(decodeJsonValue(1.5, "number")).toBe(1.5);
    expect(decodeJsonValue("0.8", "number")).toBe(0.8);
    expect(decodeJsonValue("18446744073709551615", "number")).toBe(18446744073709551615n);
    expect(decodeJsonValue(1e20, "number")).toBe(100000000000000000000n);
    expect(decodeJsonValue(12n, "number")).toBe(12);
    expect(() => decodeJsonValue("twelve", "number")).toThrow('(root): expected number, got string "twelve"');
  });

  test("primitives convert the way cty's JSON decoder converts them", () => {
    expect(decodeJsonValue(42, "string")).toBe("42");
    expect(decodeJsonValue(1e-7, "string")).toBe("0.0000001");
    expect(decodeJsonValue(1e21, "string")).toBe("1000000000000000000000");
    expect(decodeJsonValue(true, "string")).toBe("true");
    expect(decodeJsonValue("true", "bool")).toBe(true);
    expect(decodeJsonValue("0", "bool")).toBe(false);
    expect(() => decodeJsonValue("yes", "bool")).toThrow("(root): expected bool, got string");
  });

  test("null is null at every type, including dynamic", () => {
    expect(decodeJsonValue(null, type)).toBeNull();
    expect(decodeJsonValue(null, "dynamic")).toBeNull();
    expect(decodeJsonValue({ value: null, type: "string" }, "dynamic")).toEqual(dyn("string", null));
  });

  test("errors name the path", () => {
    expect(() => decodeJsonValue({ bogus: 1 }, type)).toThrow('(root): unsupported attribute "bogus": the object type has no such attribute');
    expect(() => decodeJsonValue({ nested: [{ a: "x" }, { c: 1 }] }, type)).toThrow('.nested[1]: unsupported attribute "c"');
    expect(() => decodeJsonValue({ pair: ["a"] }, type)).toThrow(".pair: expected a tuple of 2 elements, got 1");
    expect(() => decodeJsonValue({ tags: [1, {}] }, type)).toThrow(".tags[1]: expected string, got object");
    expect(() => decodeJsonValue({ labels: { env: [] } }, type)).toThrow('.labels["env"]: expected string, got array');
    expect(() => decodeJsonValue({ size: "big" }, type)).toThrow('.size: expected number, got string "big"');
    expect(() => decodeJsonValue({ anything: "x" }, type)).toThrow('.anything: expected dynamic value {"value": …, "type": …}, got string');
    expect(() => decodeJsonValue({ anything: { value: 1 } }, type)).toThrow(".anything: missing type in dynamically-typed value");
    expect(() => decodeJsonValue({ anything: { type: "number" } }, type)).toThrow(".anything: missing value in dynamically-typed value");
    expect(() => decodeJsonValue({ anything: { value: 1, type: "number", x: 0 } }, type)).toThrow('.anything: invalid key "x" in dynamically-typed value');
    expect(() => decodeJsonValue({ anything: { value: 1, type: ["list"] } }, type)).toThrow('.anything: invalid type JSON ["list"]');
  });

  test("JSON and msgpack decode the same value to the same JS value", () => {
    const json = {
      id: "x",
      size: "9007199254740993",
      enabled: false,
      tags: [],
      labels: {},
      pair: ["a", 0.25],
      nested: [],
      anything: { value: true, type: "bool" },
    };
    const fromJson = decodeJsonValue(json, type);
    expect(decodeValue(encodeValue(fromJson, type), type)).toEqual(fromJson);
  });
});
