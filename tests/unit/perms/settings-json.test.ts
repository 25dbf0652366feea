// The settings file's JSON parser: strict JSON, with where each value and key
// starts, and syntax errors at their line and column.
import { describe, expect, test } from "bun:test";
import { JsonSyntaxError, parseJsonWithPositions } from "../../../src/perms/settings-json.ts";
import { thrown } from "../../support/thrown.ts";

function syntaxError(text: string): string {
  const err = thrown(() => parseJsonWithPositions(text), JsonSyntaxError);
  return `${err.position.line}:${err.position.col} ${err.message}`;
}

describe("parseJsonWithPositions", () => {
  test("values equal JSON.parse's, with positions by JSON pointer", () => {
    const text = '{\n  "allow": ["write:src/**", "run:git status"],\n  "a/b": {"~x": -1.5e2, "t": true, "n": null, "s": "\\u00e9\\n"}\n}\n';
    const p = parseJsonWithPositions(text);
    expect(p.value).toEqual(JSON.parse(text));
    expect(p.positions.get("")).toEqual({ line: 1, col: 1 });
    expect(p.positions.get("/allow/1")).toEqual({ line: 2, col: 29 });
    expect(p.keyPositions.get("/allow")).toEqual({ line: 2, col: 3 });
    // "/" and "~" in keys are escaped as JSON pointers escape them.
    expect(p.positions.get("/a~1b/~0x")).toEqual({ line: 3, col: 17 });
  });

  const ERRORS: [string, string][] = [
    ['{"allow": ["a",]}', "1:16 trailing comma before ]"],
    ['{"allow": [],\n}', "2:1 trailing comma before }"],
    ["{allow: []}", '1:2 unexpected "a", expected a property name in double quotes'],
    ['{"allow" []}', '1:10 unexpected "[", expected ":" after the property name'],
    ['{"allow": [\'x\']}', "1:12 unexpected \"'\", expected a value"],
    ['{"a": "open', "1:7 unterminated string"],
    ['{"a": "\\q"}', "1:8 bad escape \\q"],
    ['{"a": 01}', '1:8 unexpected "1", expected "," or "}"'],
    ['{"a": 1} x', '1:10 unexpected "x" after the end of the document'],
    ["", "1:1 unexpected end of file, expected a value"],
    ['{"a": [1 2]}', '1:10 unexpected "2", expected "," or "]"'],
  ];
  for (const [text, says] of ERRORS) {
    test(`${JSON.stringify(text)}: ${says}`, () => expect(syntaxError(text)).toBe(says));
  }
});
