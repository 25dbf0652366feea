// The help text names only options the parser accepts, and the defaults it
// states are the ones a run gets.
import { expect, test } from "bun:test";
import { parseConfig } from "../../src/config.ts";
import { DEFAULT_MAX_TURNS, DEFAULT_MODEL, fitHelp, HELP } from "../../src/help.ts";
import { tempDir } from "../support/context.ts";

const env = { ANTHROPIC_API_KEY: "k" };

function usageError(argv: string[]): string | undefined {
  try {
    parseConfig(argv, env, false);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

test("every long option in the help is one the parser knows", () => {
  const flags = [...new Set([...HELP.matchAll(/--[a-z][a-z-]+/g)].map((m) => m[0]))];
  expect(flags.length).toBeGreaterThan(20);
  for (const flag of flags) {
    // A flag that needs a value complains about the value, never that it is unknown.
    expect({ flag, error: usageError([flag])?.includes("unknown option") ?? false }).toEqual({ flag, error: false });
  }
  expect(usageError(["--no-such-flag"])).toContain("unknown option --no-such-flag");
});

test("the default model and turn limit the help names are the ones a run gets", () => {
  expect(HELP).toContain(`default ${DEFAULT_MODEL}`);
  expect(HELP).toContain(`default ${DEFAULT_MAX_TURNS}`);
  const { config } = parseConfig(["-C", tempDir("bunker-help-"), "-p", "hi"], env, false);
  expect(config?.model).toBe(DEFAULT_MODEL);
  expect(config?.maxTurns).toBe(DEFAULT_MAX_TURNS);
});

test("every option line lines up: long names in one column, short ones before them (a person scans the column)", () => {
  const optionLines = HELP.split("\n").filter((l) => /^\s+(-\w, )?--[a-z]/.test(l));
  expect(optionLines.length).toBeGreaterThan(15);
  for (const line of optionLines) expect({ line, at: line.indexOf("--") }).toEqual({ line, at: 6 });
});

test("the help fits the terminal it is shown on, each option's description going on under its own column; a pipe gets it whole (new user 13's N13-08)", () => {
  for (const columns of [80, 60]) {
    const rows = fitHelp(HELP, columns).split("\n");
    expect({ columns, widest: Math.max(...rows.map((r) => r.length)) <= columns }).toEqual({ columns, widest: true });
    const model = rows.findIndex((r) => r.startsWith("  -m, --model NAME"));
    const column = rows[model]!.indexOf("model (");
    // Its description's next row starts under it, and no word is lost.
    expect(rows[model + 1]!.slice(0, column).trim()).toBe("");
    expect(rows.join(" ").replace(/\s+/g, " ")).toBe(HELP.replace(/\s+/g, " "));
  }
  expect(fitHelp(HELP, undefined)).toBe(HELP);
});
