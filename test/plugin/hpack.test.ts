/** @tier unit */
/**
 * HPACK against RFC 7541's own examples (Appendix C), the Huffman code against Appendix B's
 * properties, and the decoder's refusals. Interop with nghttp2's encoder (Huffman, dynamic
 * table) is in h2.test.ts, through node's HTTP/2 client.
 */
import { HeaderListTooLarge, HpackDecoder, HpackEncoder, HpackError, type HeaderField } from "../../src/plugin/h2/hpack";
import { EOS, codeLengths, codes, huffmanDecode } from "../../src/plugin/h2/huffman";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

/** Huffman-codes a string with the derived codes: the tests' own encoder, to check decoding. */
function huffmanEncode(text: string, padding = "1111111"): Buffer {
  const table = codes();
  const lengths = codeLengths();
  let bits = "";
  for (const byte of Buffer.from(text, "latin1")) bits += table[byte].toString(2).padStart(lengths[byte], "0");
  bits += padding.slice(0, (8 - (bits.length % 8)) % 8);
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

describe("the Huffman code (Appendix B)", () => {
  test("is complete: the lengths' Kraft sum is exactly 1", () => {
    // Sum of 2^-len over 257 symbols, in units of 2^-30 to stay exact.
    expect(codeLengths().reduce((sum, l) => sum + 2 ** (30 - l), 0)).toBe(2 ** 30);
  });

  test("derives the RFC's codes", () => {
    const c = codes();
    const lengths = codeLengths();
    const rfc: [number, number, number][] = [
      [0, 0x1ff8, 13],
      [10, 0x3ffffffc, 30],
      [32, 0x14, 6],
      [48, 0x0, 5],
      [97, 0x3, 5],
      [127, 0xffffffc, 28],
      [199, 0x1ffffec, 25],
      [220, 0xffffffd, 28],
      [255, 0x3ffffee, 26],
      [EOS, 0x3fffffff, 30],
    ];
    for (const [symbol, code, length] of rfc) expect([symbol, c[symbol], lengths[symbol]]).toEqual([symbol, code, length]);
  });

  test("decodes every octet, alone and together", () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString("latin1");
    expect(huffmanDecode(huffmanEncode(all))).toBe(all);
    for (let i = 0; i < 256; i++) expect(huffmanDecode(huffmanEncode(String.fromCharCode(i)))).toBe(String.fromCharCode(i));
  });

  test("refuses EOS, padding over 7 bits, and padding with a zero", () => {
    expect(() => huffmanDecode(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toThrow(/EOS/);
    expect(() => huffmanDecode(Buffer.from([0x1f, 0xff]))).toThrow(/longer than 7 bits/); // 'a' (00011) then 11 ones
    expect(() => huffmanDecode(huffmanEncode("a", "1101111"))).toThrow(/not all ones/);
  });
});

describe("decoding the RFC's examples", () => {
  test("C.2: one field of each literal form, and an indexed one", () => {
    const d = new HpackDecoder();
    expect(d.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))).toEqual([["custom-key", "custom-header"]]);
    expect(d.table.size).toBe(55);
    expect(new HpackDecoder().decode(hex("040c 2f73 616d 706c 652f 7061 7468"))).toEqual([[":path", "/sample/path"]]);
    expect(new HpackDecoder().decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))).toEqual([["password", "secret"]]);
    expect(new HpackDecoder().decode(hex("82"))).toEqual([[":method", "GET"]]);
  });

  const requests: HeaderField[][] = [
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ],
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ],
    [
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ],
  ];
  const tables: HeaderField[][] = [
    [[":authority", "www.example.com"]],
    [
      ["cache-control", "no-cache"],
      [":authority", "www.example.com"],
    ],
    [
      ["custom-key", "custom-value"],
      ["cache-control", "no-cache"],
      [":authority", "www.example.com"],
    ],
  ];

  test.each([
    [
      "C.3: requests without Huffman",
      [
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
      ],
    ],
    [
      "C.4: requests with Huffman",
      ["8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", "8286 84be 5886 a8eb 1064 9cbf", "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"],
    ],
  ])("%s, through one decoder", (_name, blocks) => {
    const d = new HpackDecoder();
    const sizes = [57, 110, 164];
    blocks.forEach((block, i) => {
      expect(d.decode(hex(block))).toEqual(requests[i]);
      expect(d.table).toEqual({ entries: tables[i], size: sizes[i] });
    });
  });

  test("C.6: responses with Huffman and a 256-octet table, so entries are evicted", () => {
    const d = new HpackDecoder({ maxTableSize: 256 });
    const date1 = "Mon, 21 Oct 2013 20:13:21 GMT";
    const date2 = "Mon, 21 Oct 2013 20:13:22 GMT";
    const location = "https://www.example.com";
    expect(
      d.decode(hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3")),
    ).toEqual([
      [":status", "302"],
      ["cache-control", "private"],
      ["date", date1],
      ["location", location],
    ]);
    expect(d.table.size).toBe(222);
    expect(d.decode(hex("4883 640e ffc1 c0bf"))).toEqual([
      [":status", "307"],
      ["cache-control", "private"],
      ["date", date1],
      ["location", location],
    ]);
    expect(d.table.size).toBe(222);
    expect(
      d.decode(
        hex(
          "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        ),
      ),
    ).toEqual([
      [":status", "200"],
      ["cache-control", "private"],
      ["date", date2],
      ["location", location],
      ["content-encoding", "gzip"],
      ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"],
    ]);
    expect(d.table).toEqual({
      entries: [
        ["set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"],
        ["content-encoding", "gzip"],
        ["date", date2],
      ],
      size: 215,
    });
  });
});

describe("encoding", () => {
  test("static matches are one octet; other fields are literals that never touch the dynamic table", () => {
    const e = new HpackEncoder();
    expect(e.encode([[":status", "200"]])).toEqual(hex("88"));
    expect(e.encode([["content-type", "application/grpc"]])).toEqual(Buffer.concat([hex("0f10 10"), Buffer.from("application/grpc")]));
    const d = new HpackDecoder();
    const fields: HeaderField[] = [
      [":status", "200"],
      ["content-type", "application/grpc"],
      ["grpc-status", "0"],
      ["grpc-message", "bad input%0Aline 2 %E2%80%94"],
      ["x-latin1", "caf\u00e9 \u00ff"],
      ["x-long", "v".repeat(300)],
    ];
    expect(d.decode(e.encode(fields))).toEqual(fields);
    expect(d.table.size).toBe(0);
  });

  test("random header lists round-trip", () => {
    const d = new HpackDecoder();
    const e = new HpackEncoder();
    const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    const octets = Array.from({ length: 0xe0 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    for (let i = 0; i < 200; i++) {
      const fields: HeaderField[] = Array.from({ length: 1 + (i % 7) }, () => [
        pick("abcdefghijklmnopqrstuvwxyz0123456789-", 1 + Math.floor(Math.random() * 20)),
        pick(octets, Math.floor(Math.random() * 200)),
      ]);
      expect(d.decode(e.encode(fields))).toEqual(fields);
    }
  });
});

describe("refusals", () => {
  test.each([
    ["index 0", "80"],
    ["an index beyond the table", "be"],
    ["a truncated integer", "ff"],
    ["an integer over 2^31-1", "ff ff ff ff ff 0f"],
    ["a string beyond the block", "0003 6162"],
    ["a truncated field", "00"],
    ["a Huffman string holding EOS", "00 81 61 84 ff ff ff ff"],
    ["a size update above the maximum", "3f e2 1f"],
    ["a size update after a field", "82 20"],
  ])("%s", (_name, block) => {
    expect(() => new HpackDecoder().decode(hex(block))).toThrow(HpackError);
  });

  test("a list over the limit is refused after the whole block, so the next block decodes in step", () => {
    const d = new HpackDecoder({ maxHeaderListSize: 130 });
    const big: HeaderField = ["x-big", "b".repeat(80)]; // 117 octets with its overhead
    // A literal with incremental indexing (added to the table although the list is refused), then :method GET (42).
    const block = Buffer.concat([hex("40 05"), Buffer.from("x-big"), hex("50"), Buffer.from(big[1]), hex("82")]);
    expect(() => d.decode(block)).toThrow(HeaderListTooLarge);
    expect(d.decode(hex("be"))).toEqual([big]);
  });
});
