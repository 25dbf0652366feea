// Checks tool input from the model against the tool's schema, so a missing
// or mistyped field becomes one clear error the model can fix, not a crash.
import type { JsonSchema } from "./tool.ts";

/** Returns a list of problems, empty when the input fits the schema. */
export function validateInput(schema: JsonSchema, value: unknown, at = "input"): string[] {
  const problems: string[] = [];
  check(schema, value, at, problems);
  return problems;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function check(schema: JsonSchema, value: unknown, at: string, problems: string[]): void {
  const actual = typeOf(value);
  const fits =
    schema.type === actual || (schema.type === "number" && actual === "integer");
  if (!fits) {
    problems.push(`${at} must be ${article(schema.type)}, got ${actual === "undefined" ? "nothing" : actual}`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value as string)) {
    problems.push(`${at} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}, got ${JSON.stringify(value)}`);
  }
  if (schema.type === "array" && schema.items) {
    (value as unknown[]).forEach((item, i) => check(schema.items!, item, `${at}[${i}]`, problems));
  }
  if (schema.type === "object") {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (obj[key] === undefined) problems.push(`${at === "input" ? "" : at + "."}${key} is required`);
    }
    for (const [key, v] of Object.entries(obj)) {
      const sub = schema.properties?.[key];
      const path = at === "input" ? key : `${at}.${key}`;
      if (!sub) {
        if (schema.additionalProperties === false) problems.push(`${path} is not a known field`);
        continue;
      }
      if (v === undefined || (v === null && !(schema.required ?? []).includes(key))) continue;
      check(sub, v, path, problems);
    }
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
