// The command-line flag parser: node:util's parseArgs in strict mode with
// positionals allowed, rule for rule and with the same error messages
// (config.ts's flagError reads them), without loading node:util, which costs
// a headless turn more than the rest of its flag handling.
// tests/unit/flags.test.ts checks it against parseArgs itself.

export interface FlagSpec {
  type: "boolean" | "string";
  short?: string;
  multiple?: boolean;
}

export interface ParsedFlags {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

interface OptionToken {
  name: string;
  rawName: string;
  value: string | undefined;
  inlineValue: boolean | undefined;
}

type Token = { kind: "option"; option: OptionToken } | { kind: "positional"; value: string };

export function parseFlags(args: string[], options: Record<string, FlagSpec>): ParsedFlags {
  const own = (name: string): FlagSpec | undefined => (Object.hasOwn(options, name) ? options[name] : undefined);
  // A loop, not .find: see jit.ts.
  const longFor = (short: string): string => {
    for (const name in options) if (options[name]!.short === short) return name;
    return short;
  };
  const takesValue = (name: string) => own(name)?.type === "string";

  const tokens: Token[] = [];
  const rest = [...args];
  while (rest.length > 0) {
    const arg = rest.shift()!;
    const next = rest[0];
    if (arg === "--") {
      for (const value of rest) tokens.push({ kind: "positional", value });
      break;
    }
    const short = arg.length > 1 && arg[0] === "-" && arg[1] !== "-";
    if (short && arg.length === 2) {
      // -m VALUE: a string option takes the next word, whatever it is.
      const name = longFor(arg[1]!);
      const value = takesValue(name) && next !== undefined ? rest.shift() : undefined;
      tokens.push({ kind: "option", option: { name, rawName: arg, value, inlineValue: value === undefined ? undefined : false } });
      continue;
    }
    if (short && !takesValue(longFor(arg[1]!))) {
      // A group, -pA: each letter alone (named without its dash, as Bun's parseArgs names it);
      // a string option in it takes the rest of the group, or the next word when it ends the group.
      for (let i = 1; i < arg.length; i++) {
        const letter = arg[i]!;
        const name = longFor(letter);
        if (takesValue(name) && i < arg.length - 1) {
          tokens.push({ kind: "option", option: { name, rawName: letter, value: arg.slice(i + 1), inlineValue: true } });
          break;
        }
        const value = takesValue(name) && rest[0] !== undefined ? rest.shift() : undefined;
        tokens.push({ kind: "option", option: { name, rawName: letter, value, inlineValue: value === undefined ? undefined : false } });
      }
      continue;
    }
    if (short) {
      // -mVALUE
      tokens.push({ kind: "option", option: { name: longFor(arg[1]!), rawName: `-${arg[1]}`, value: arg.slice(2), inlineValue: true } });
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=", 3);
      if (eq === -1) {
        const name = arg.slice(2);
        const value = takesValue(name) && next !== undefined ? rest.shift() : undefined;
        tokens.push({ kind: "option", option: { name, rawName: arg, value, inlineValue: value === undefined ? undefined : false } });
      } else {
        const name = arg.slice(2, eq);
        tokens.push({ kind: "option", option: { name, rawName: `--${name}`, value: arg.slice(eq + 1), inlineValue: true } });
      }
      continue;
    }
    tokens.push({ kind: "positional", value: arg });
  }

  const values: ParsedFlags["values"] = Object.create(null);
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const { name, rawName, value, inlineValue } = token.option;
    const spec = own(name);
    if (!spec) {
      throw new Error(`Unknown option '${rawName}'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- ${JSON.stringify(rawName)}`);
    }
    const shortAndLong = `${spec.short ? `-${spec.short}, ` : ""}--${name}`;
    if (spec.type === "string" && typeof value !== "string") throw new Error(`Option '${shortAndLong} <value>' argument missing`);
    if (spec.type === "boolean" && value !== undefined) throw new Error(`Option '${shortAndLong}' does not take an argument`);
    if (!inlineValue && value !== undefined && value.length > 1 && value[0] === "-") {
      const example = rawName.startsWith("--") ? `'${rawName}=-XYZ'` : `'--${name}=-XYZ' or '${rawName}-XYZ'`;
      throw new Error(`Option '${rawName}' argument is ambiguous.\nDid you forget to specify the option argument for '${rawName}'?\nTo specify an option argument starting with a dash use ${example}.`);
    }
    if (name === "__proto__") continue;
    const stored = value ?? true;
    if (spec.multiple) ((values[name] ??= []) as (string | boolean)[]).push(stored);
    else values[name] = stored;
  }
  return { values, positionals };
}
