// Tab completion in the REPL's input line, as Claude Code users expect it:
// `/` and the start of a command name complete to the command (the matching
// commands are listed under the line as you type), and `@` with the start of
// a path completes to a file or folder of the workspace, one folder at a time
// as a shell does. What is listed comes from the caller: commands from the
// table, paths from a listing that leaves out what the read permission would
// refuse (src/repl.ts). Pure: text and cursor in, the edit and the list out.

/** A command as offered: its name with the slash, and its one line of help. */
export interface CommandChoice {
  name: string;
  help: string;
}

/** One entry of a workspace folder, as the listing gives it. */
export interface PathEntry {
  name: string;
  dir: boolean;
}

export interface CompletionSources {
  commands: () => CommandChoice[];
  /** The entries of the workspace folder `dir` ("" for the top, "src/" below it) that may be read; null when none. */
  list: (dir: string) => PathEntry[] | null;
}

/** What the word at the cursor could become: the span it takes, and every whole candidate for it. */
export interface Completion {
  from: number;
  to: number;
  /** Each as it would stand in the line (`/help`, `@src/`, `@calc.js`), sorted. */
  candidates: string[];
  /** A candidate that is finished (a command, a file): a space follows it once it is the only one. Folders go on. */
  finished: Set<string>;
}

/** The command being typed: the whole line so far is `/` and a name. */
const COMMAND_WORD = /^\/[\w:-]*$/;
/** `@` and a path at the cursor, at the start of a word. */
const AT_PATH = /(?:^|[\s(])(@[^\s@'"]*)$/;

export function completionAt(text: string, cursor: number, src: CompletionSources): Completion | null {
  const before = text.slice(0, cursor);
  if (COMMAND_WORD.test(before)) {
    const names = src.commands().map((c) => c.name).filter((n) => n.startsWith(before)).sort();
    return { from: 0, to: cursor, candidates: names, finished: new Set(names) };
  }
  const at = AT_PATH.exec(before);
  if (!at) return null;
  const typed = at[1]!.slice(1);
  const slash = typed.lastIndexOf("/");
  const dir = typed.slice(0, slash + 1);
  const base = typed.slice(slash + 1);
  const entries = src.list(dir) ?? [];
  const candidates: string[] = [];
  const finished = new Set<string>();
  for (const e of entries) {
    // Hidden entries only when asked for by their dot, as a shell lists them.
    if (!e.name.startsWith(base) || (e.name.startsWith(".") && !base.startsWith("."))) continue;
    const whole = `@${dir}${e.name}${e.dir ? "/" : ""}`;
    candidates.push(whole);
    if (!e.dir) finished.add(whole);
  }
  candidates.sort();
  return { from: cursor - at[1]!.length, to: cursor, candidates, finished };
}

/** While the line is `/` and the start of a name (the cursor at its end): the commands it could be, by name. */
export function matchingCommands(text: string, cursor: number, src: CompletionSources): CommandChoice[] {
  if (cursor !== text.length || !COMMAND_WORD.test(text)) return [];
  return src
    .commands()
    .filter((c) => c.name.startsWith(text))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The longest start every candidate shares. */
export function commonStart(words: string[]): string {
  if (words.length === 0) return "";
  let end = words[0]!.length;
  for (const w of words) {
    let i = 0;
    while (i < end && i < w.length && w[i] === words[0]![i]) i++;
    end = i;
  }
  return words[0]!.slice(0, end);
}

/**
 * What Tab does: one candidate replaces the word (a space after it when finished); several complete the start
 * they share and are listed. `text` and `cursor` after it, and the list to show ([] for none).
 */
export function applyTab(text: string, cursor: number, c: Completion): { text: string; cursor: number; list: string[] } {
  if (c.candidates.length === 0) return { text, cursor, list: [] };
  const only = c.candidates.length === 1 ? c.candidates[0]! : null;
  const word = only ?? commonStart(c.candidates);
  const typed = text.slice(c.from, c.to);
  // A finished word gets the space after it, unless one follows already.
  const spaced = only && c.finished.has(only) && !/^\s/.test(text.slice(c.to));
  const insert = spaced ? `${word} ` : word.length > typed.length ? word : typed;
  const next = text.slice(0, c.from) + insert + text.slice(c.to);
  return { text: next, cursor: c.from + insert.length, list: only ? [] : c.candidates };
}
