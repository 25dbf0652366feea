// Session prefixes: which leading words ("always allow commands starting with
// `git status`") may be offered and honoured. Pure: words in, words out.
import { isLiteral, type SimpleCommand } from "../../shell/parse.ts";
import { NO_PREFIX_SUBCOMMANDS, PACKAGE_RUNNERS, RUN_SUBCOMMANDS, SCRIPT_PROGRAMS, SUBCOMMAND_PROGRAMS } from "./programs.ts";

const SAFE_PREFIX_WORD = /^[\w@%+=:,./-]+$/;

/** `/usr/bin/python3.12`, `.venv/bin/python`, `lua5.4`: the program behind a path or a version number. */
export function isScriptProgram(word: string): boolean {
  const base = word.slice(word.lastIndexOf("/") + 1);
  return SCRIPT_PROGRAMS.has(base) || SCRIPT_PROGRAMS.has(base.replace(/[\d.]+$/, ""));
}

/** Whether a session prefix may name these words: none of them runs a script of the model's choosing. */
export function prefixAllowed(words: readonly string[]): boolean {
  if (isModuleRun(words)) return true;
  if (words.length >= 2 && NO_PREFIX_SUBCOMMANDS.has(`${words[0]} ${words[1]}`)) return false;
  return !words.some(isScriptProgram);
}

/** `python3 -m pytest …`: a module named by the person, whose own arguments may vary. */
export function isModuleRun(words: readonly string[]): boolean {
  return (words[0] === "python" || words[0] === "python3") && words[1] === "-m" && words.length >= 3;
}

/** Program plus subcommand (`git status`, `bun test`, `npm run build`), from the command's literal leading words; "" for none. */
export function prefixOf(cmd: SimpleCommand): string {
  const words: string[] = [];
  for (const w of cmd.argv) {
    if (!isLiteral(w) || !SAFE_PREFIX_WORD.test(w.text)) break;
    words.push(w.text);
  }
  if (words.length === 0) return "";
  const [program, second, third] = words;
  const take = (n: number) => words.slice(0, n).join(" ");
  if (isModuleRun(words)) return take(3);
  // `sh`, `npx tsx`, `uv run python`: a prefix would allow any script.
  if (!prefixAllowed(words.slice(0, 3))) return "";
  if (PACKAGE_RUNNERS.has(program!)) return second && !second.startsWith("-") ? take(2) : take(1);
  if (!SUBCOMMAND_PROGRAMS.has(program!) || !second) return program!;
  // `git -C dir config …`, `go -C . run …`: options before the subcommand hide what it is; no prefix.
  if (second.startsWith("-")) return "";
  if (RUN_SUBCOMMANDS.has(second) && third && !third.startsWith("-")) return take(3);
  return take(2);
}
