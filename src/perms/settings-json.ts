// A strict JSON parser that knows where things are: a syntax error comes back
// as line:column (the built-in JSON.parse says only what, not where), and
// every value's position is recorded by JSON pointer ("/allow/2") so a bad
// rule can be reported at its own line.

export interface Position {
  line: number;
  col: number;
}

export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
  constructor(
    message: string,
    readonly position: Position,
  ) {
    super(message);
  }
}

export interface ParsedJson {
  value: unknown;
  /** JSON pointer → where that value starts. "" is the whole document. */
  positions: Map<string, Position>;
  /** JSON pointer of an object member → where its key starts. */
  keyPositions: Map<string, Position>;
}

export function parseJsonWithPositions(text: string): ParsedJson {
  const positions = new Map<string, Position>();
  const keyPositions = new Map<string, Position>();
  let i = 0;

  const lineStarts = [0];
  for (let k = text.indexOf("\n"); k !== -1; k = text.indexOf("\n", k + 1)) lineStarts.push(k + 1);
  const posAt = (offset: number): Position => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - lineStarts[lo]! + 1 };
  };
  const fail = (what: string, at = i): never => {
    throw new JsonSyntaxError(what, posAt(at));
  };
  const describe = (at: number): string => (at >= text.length ? "end of file" : JSON.stringify(text[at]));

  const skipWs = (): void => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };

  const value = (pointer: string): unknown => {
    skipWs();
    positions.set(pointer, posAt(i));
    const ch = text[i];
    if (ch === "{") return object(pointer);
    if (ch === "[") return array(pointer);
    if (ch === '"') return string();
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(`unexpected ${describe(i)}, expected a value`);
  };

  const object = (pointer: string): Record<string, unknown> => {
    // No prototype: a "__proto__" key is data, not a prototype change.
    const out: Record<string, unknown> = Object.create(null);
    i++;
    skipWs();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      skipWs();
      if (text[i] !== '"') fail(`unexpected ${describe(i)}, expected a property name in double quotes`);
      const keyAt = posAt(i);
      const key = string();
      keyPositions.set(`${pointer}/${escapePointer(key)}`, keyAt);
      skipWs();
      if (text[i] !== ":") fail(`unexpected ${describe(i)}, expected ":" after the property name`);
      i++;
      out[key] = value(`${pointer}/${escapePointer(key)}`);
      skipWs();
      if (text[i] === ",") {
        i++;
        skipWs();
        if (text[i] === "}") fail("trailing comma before }");
        continue;
      }
      if (text[i] === "}") {
        i++;
        return out;
      }
      fail(`unexpected ${describe(i)}, expected "," or "}"`);
    }
  };

  const array = (pointer: string): unknown[] => {
    const out: unknown[] = [];
    i++;
    skipWs();
    if (text[i] === "]") {
      i++;
      return out;
    }
    for (;;) {
      out.push(value(`${pointer}/${out.length}`));
      skipWs();
      if (text[i] === ",") {
        i++;
        skipWs();
        if (text[i] === "]") fail("trailing comma before ]");
        continue;
      }
      if (text[i] === "]") {
        i++;
        return out;
      }
      fail(`unexpected ${describe(i)}, expected "," or "]"`);
    }
  };

  const string = (): string => {
    const start = i;
    i++;
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch === "\n") fail("unterminated string", start);
      if (ch === '"') break;
      if (ch! < " ") fail("control character in a string");
      if (ch === "\\") {
        const esc = text[i + 1];
        if (esc === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("bad \\u escape");
          i += 6;
          continue;
        }
        if (esc === undefined || !'"\\/bfnrt'.includes(esc)) fail(`bad escape \\${esc ?? ""}`);
        i += 2;
        continue;
      }
      i++;
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };

  const number = (): number => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail("bad number");
    i += m[0].length;
    return Number(m[0]);
  };

  // A BOM before the document is harmless; editors add them.
  if (text.startsWith("\uFEFF")) i = 1;
  const result = value("");
  skipWs();
  if (i < text.length) fail(`unexpected ${describe(i)} after the end of the document`);
  return { value: result, positions, keyPositions };
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
