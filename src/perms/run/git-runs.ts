// What a git command line hands git to run: the settings, options and
// subcommands of programs.ts (GIT_PROGRAM_*) found in its words. The judge
// treats each as running that program (judge.ts, gitRunsProblem).
import type { Word } from "../../shell/parse.ts";
import { shellQuote } from "../../shell/quote.ts";
import { GIT_PROGRAM_OPTIONS, GIT_PROGRAM_SETTINGS, GIT_PROGRAM_SUBCOMMANDS, type GitRuns } from "./programs.ts";

export interface GitRun {
  /** The words that hand it over, as written (`-c core.pager=less`). */
  via: string;
  /** The shell line git will run; null when bunker cannot say beforehand (a directory of programs, an included file). */
  command: string | null;
}

/** git's own options that take the next word as their value (when not written `--opt=value`). */
const GLOBAL_WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds"]);
const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

/** Every program `git ARGS…` is handed to run (empty for a plain `git status`). */
export function gitRuns(argv: Word[]): GitRun[] {
  if (argv[0]?.text !== "git") return [];
  const out: GitRun[] = [];
  let i = 1;
  for (; i < argv.length; i++) {
    const t = argv[i]!.text;
    if (!t.startsWith("-")) break;
    const [name, inline] = splitOption(t);
    const value = inline ?? (GLOBAL_WITH_VALUE.has(name) ? argv[++i]?.text : undefined);
    if (name === "-c" || (name.startsWith("-c") && !name.startsWith("--"))) {
      const setting = name === "-c" ? value : t.slice(2);
      if (setting !== undefined) out.push(...settingRuns(setting, `-c ${setting}`));
      continue;
    }
    const option = GIT_PROGRAM_OPTIONS.find((o) => o.subcommands.includes("") && o.names.some((n) => abbreviates(name, n)));
    const run = option && (inline !== undefined || option.names[0] === "--config-env") ? runOf(option.runs, value ?? "", t) : null;
    if (run) out.push(run);
  }
  const sub = argv[i]?.text ?? "";
  const rest = argv.slice(i + 1);
  for (const s of GIT_PROGRAM_SUBCOMMANDS) {
    if (sub !== s.words[0] || rest[0]?.text !== s.words[1]) continue;
    const words = rest.slice(1).filter((w, k) => !(k === 0 && w.text === "--recursive"));
    if (words.length === 0) continue;
    const command = s.runs === "argv" ? words.map((w) => shellQuote(w.text)).join(" ") : words.map((w) => w.text).join(" ");
    out.push({ via: `${sub} ${s.words[1]}`, command });
  }
  // `git config alias.x '!cmd'`: what the setting will run is judged now, as if run (the next `git x` would run it unasked).
  if (sub === "config") out.push(...configWrites(rest));
  const options = GIT_PROGRAM_OPTIONS.filter((o) => o.subcommands.includes(sub));
  for (let k = 0; k < rest.length; k++) {
    const t = rest[k]!.text;
    if (t === "--") break;
    if (!t.startsWith("-") || t === "-") continue;
    for (const o of options) {
      let value: string | undefined;
      let separate = false;
      if (t.startsWith("--")) {
        const [name, inline] = splitOption(t);
        if (!o.names.some((n) => abbreviates(name, n))) continue;
        separate = inline === undefined;
        value = inline ?? rest[++k]?.text;
      } else if (o.short && t[1] === o.short) {
        // `-xcmd` or `-x cmd`; grep's -O takes only an attached value (none: the pager).
        separate = t.length === 2 && o.short !== "O";
        value = t.length > 2 ? t.slice(2) : o.short === "O" ? "" : rest[++k]?.text;
      } else continue;
      const via = `${sub} ${t}${separate && value !== undefined ? ` ${shellQuote(value)}` : ""}`;
      const run = value === "" && o.short === "O" ? { via, command: null } : runOf(o.runs, value ?? "", via);
      if (run) out.push(run);
      break;
    }
  }
  return out;
}

/** `--name=value` → [--name, value]; otherwise [word, undefined]. */
function splitOption(t: string): [string, string | undefined] {
  const eq = t.indexOf("=");
  return t.startsWith("--") && eq > 0 ? [t.slice(0, eq), t.slice(eq + 1)] : [t, undefined];
}

/** git takes any unambiguous start of a long option (`--upload-p`): at least three letters count here. */
function abbreviates(written: string, full: string): boolean {
  if (!written.startsWith("--") || !full.startsWith("--")) return written === full;
  return written === full || (written.length >= 5 && full.startsWith(written));
}

/** What `-c KEY=VALUE` makes git run, if anything. */
function settingRuns(setting: string, via: string): GitRun[] {
  const eq = setting.indexOf("=");
  const key = (eq < 0 ? setting : setting.slice(0, eq)).toLowerCase();
  const value = eq < 0 ? "true" : setting.slice(eq + 1);
  const entry = GIT_PROGRAM_SETTINGS.find((e) => e.names.some((n) => keyMatches(key, n)));
  if (!entry) return [];
  if ((key.startsWith("pager.") || key === "core.pager" || key === "core.fsmonitor") && BOOLEAN.test(value)) return [];
  if (/^credential\.(.*\.)?helper$/.test(key) && !value.startsWith("!") && !value.includes("/")) {
    return value === "" ? [] : [{ via, command: `git credential-${value}` }];
  }
  const run = runOf(entry.runs, value, via);
  return run ? [run] : [];
}

/** `diff.*.command` matches `diff.x.command` and `diff.a.b.command` (a subsection may hold dots). */
function keyMatches(key: string, pattern: string): boolean {
  const [section, ...restParts] = pattern.split(".");
  const last = restParts.at(-1)!;
  const parts = key.split(".");
  if (last === "*") return parts[0] === section && parts.length >= 2;
  if (parts[0] !== section || parts.at(-1) !== last) return false;
  return restParts.length === 1 ? parts.length === 2 : parts.length >= 3;
}

/** What git runs for `value` given as `runs` says; null when it runs nothing (a harmless setting). */
function runOf(runs: GitRuns, value: string, via: string): GitRun | null {
  switch (runs) {
    case "opaque":
      return { via, command: null };
    case "setting":
      return settingRuns(value, via)[0] ?? null;
    case "program":
      // Judged as words, as git hands a value with spaces or shell characters to sh.
      return { via, command: value };
    case "git":
      return { via, command: value.startsWith("!") ? value.slice(1) : `git ${value}` };
    case "shell":
      return { via, command: value.startsWith("!") ? value.slice(1) : value };
  }
}

/** git config's options that take the next word as their value. */
const CONFIG_WITH_VALUE = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"]);

/** `git config [set] [--add|--file F|…] KEY VALUE`: the setting it writes, when that setting runs a program. */
function configWrites(rest: Word[]): GitRun[] {
  const words: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const t = rest[k]!.text;
    if (t.startsWith("-")) {
      if (CONFIG_WITH_VALUE.has(t)) k++;
      continue;
    }
    words.push(t);
  }
  if (words[0] === "set" || words[0] === "add") words.shift();
  if (words.length < 2) return [];
  const setting = `${words[0]}=${words[1]}`;
  return settingRuns(setting, `config ${shellQuote(words[0]!)} ${shellQuote(words[1]!)}`);
}
