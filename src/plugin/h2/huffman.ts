/**
 * The Huffman code of HPACK string literals (RFC 7541 §5.2, Appendix B), for decoding.
 *
 * The code is canonical: within a length, codes rise with the symbol, and each length's first
 * code follows the last code of the length before it. So the bit length of each symbol is the
 * whole table, and decoding needs no code list: at each length, a code is a symbol if it falls
 * within that length's range. The 257 lengths are one character each (A = 5 bits), for
 * symbols 0 to 255 and EOS (256).
 */
const LENGTHS =
  "ISXXXXXXXTZXXZXXXXXXXXZXXXXXXXXXBFFHIBDGFFDGDBBBAAABBBBBBBCDKBHFIBCCCCCCCCCCCCCCCCCCCCCCDCDIOIJBKABABABBBACCBBBABCBAABCCCCCKGJIXPRPPRRRSRSSSSSTSTTRSTSSSSQRSRSSTRQPRRSSQSRRTQRSSQQRQSRSSPRRRSRRSVVPORSRUVVVWWVTUOQVWWVWTQQVVXWWWPTPQRQQSRRUUTTVSVWVVWWWWWXWWWWWVZ";

export const EOS = 256;
const MAX_LENGTH = 30;

/** Bit length of each symbol's code, 0..256. */
export function codeLengths(): number[] {
  return Array.from(LENGTHS, (c) => c.charCodeAt(0) - 65 + 5);
}

interface Canonical {
  /** Symbols ordered by (code length, symbol): the order codes are assigned in. */
  readonly symbols: Uint16Array;
  /** Per length: the first code, and the index in `symbols` of its first symbol. */
  readonly firstCode: Float64Array;
  readonly firstIndex: Int32Array;
  readonly count: Int32Array;
}

let canonical: Canonical | undefined;

/** Built on the first Huffman string, not at load: the plugin's first answer needs none. */
function table(): Canonical {
  if (canonical) return canonical;
  const lengths = codeLengths();
  const count = new Int32Array(MAX_LENGTH + 1);
  for (const l of lengths) count[l]++;
  const firstIndex = new Int32Array(MAX_LENGTH + 1);
  const firstCode = new Float64Array(MAX_LENGTH + 1);
  let code = 0;
  let index = 0;
  for (let l = 1; l <= MAX_LENGTH; l++) {
    firstCode[l] = code;
    firstIndex[l] = index;
    code = (code + count[l]) * 2;
    index += count[l];
  }
  const symbols = new Uint16Array(lengths.length);
  const next = Int32Array.from(firstIndex);
  for (let s = 0; s < lengths.length; s++) symbols[next[lengths[s]]++] = s;
  canonical = { symbols, firstCode, firstIndex, count };
  return canonical;
}

/** The code of each symbol, derived from the lengths (for tests and checks). */
export function codes(): number[] {
  const { symbols, firstCode, firstIndex, count } = table();
  const out = new Array<number>(symbols.length);
  for (let l = 1; l <= MAX_LENGTH; l++) for (let i = 0; i < count[l]; i++) out[symbols[firstIndex[l] + i]] = firstCode[l] + i;
  return out;
}

export class HuffmanError extends Error {}

/**
 * Decodes a Huffman-coded string to its octets (as latin1, one char per octet). Refuses what
 * §5.2 refuses: the EOS symbol, and padding longer than 7 bits or not made of ones. The code is
 * complete (every 30 bits hold a symbol), so no other bit string is invalid.
 */
export function huffmanDecode(bytes: Uint8Array): string {
  const { symbols, firstCode, firstIndex, count } = table();
  const out: number[] = [];
  let code = 0;
  let length = 0;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      code = code * 2 + ((byte >> bit) & 1);
      length++;
      const offset = code - firstCode[length];
      if (offset >= 0 && offset < count[length]) {
        const symbol = symbols[firstIndex[length] + offset];
        if (symbol === EOS) throw new HuffmanError("Huffman string holds EOS");
        out.push(symbol);
        code = 0;
        length = 0;
      }
    }
  }
  if (length > 7) throw new HuffmanError("Huffman padding longer than 7 bits");
  if (code !== 2 ** length - 1) throw new HuffmanError("Huffman padding is not all ones");
  let text = "";
  for (let i = 0; i < out.length; i += 8192) text += String.fromCharCode(...out.slice(i, i + 8192));
  return text;
}
