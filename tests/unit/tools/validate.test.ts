// Tool input from the model checked against the tool's schema: each problem
// named so the model can fix its call.
import { describe, expect, test } from "bun:test";
import type { JsonSchema } from "../../../src/tools/tool.ts";
import { validateInput } from "../../../src/tools/validate.ts";

const schema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    limit: { type: "integer" },
    ratio: { type: "number" },
    mode: { type: "string", enum: ["fast", "slow"] },
    tags: { type: "array", items: { type: "string" } },
    opts: { type: "object", properties: { deep: { type: "boolean" } }, required: ["deep"] },
  },
  required: ["path"],
  additionalProperties: false,
};

describe("validateInput", () => {
  const TABLE: [string, unknown, string[]][] = [
    ["a fitting input", { path: "a", limit: 3, ratio: 0.5, mode: "fast", tags: ["x"], opts: { deep: true } }, []],
    ["an integer where a number is asked", { path: "a", ratio: 2 }, []],
    ["a missing required field", {}, ["path is required"]],
    ["the wrong type", { path: 7 }, ["path must be a string, got integer"]],
    ["a fraction where an integer is asked", { path: "a", limit: 1.5 }, ["limit must be an integer, got number"]],
    ["a value outside the enum", { path: "a", mode: "medium" }, ['mode must be one of "fast", "slow", got "medium"']],
    ["a bad array item, by index", { path: "a", tags: ["x", 3] }, ["tags[1] must be a string, got integer"]],
    ["a nested object's problems, by path", { path: "a", opts: { deep: "yes" } }, ["opts.deep must be a boolean, got string"]],
    ["a nested required field", { path: "a", opts: {} }, ["opts.deep is required"]],
    ["an unknown field", { path: "a", force: true }, ["force is not a known field"]],
    ["null for an optional field is no value", { path: "a", limit: null }, []],
    ["not an object at all", "path=a", ["input must be an object, got string"]],
    ["nothing", undefined, ["input must be an object, got nothing"]],
    ["several problems at once", { limit: "x", extra: 1 }, ["path is required", "limit must be an integer, got string", "extra is not a known field"]],
  ];
  for (const [name, input, problems] of TABLE) {
    test(name, () => expect(validateInput(schema, input)).toEqual(problems));
  }
});
