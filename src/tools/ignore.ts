// Gitignore matching, small and pure: negation (`!`), directory-only rules
// (trailing `/`), anchored rules (a `/` at the start or in the middle), `*`,
// `?`, `[...]`, `**`, backslash escapes, and "the last matching rule wins,
// deeper .gitignore files over shallower ones". A file inside an ignored
// directory cannot be re-included: the walk never enters that directory.

export interface IgnoreRule {
  /** The line as written, for debugging. */
  source: string;
  /** `!pattern`: a match re-includes. */
  negate: boolean;
  /** `pattern/`: only directories match. */
  dirOnly: boolean;
  /** No `/` in the pattern: tested against the entry's name at any depth. */
  nameOnly: boolean;
  re: RegExp;
}

/** Parse the text of a .gitignore into rules (comments and blank lines dropped). */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const rule = parseLine(raw);
    if (rule) rules.push(rule);
  }
  return rules;
}

function parseLine(raw: string): IgnoreRule | undefined {
  let line = trimTrailingSpaces(raw);
  if (line === "" || line.startsWith("#")) return undefined;
  let negate = false;
  if (line.startsWith("!")) {
    negate = true;
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash at the start or in the middle anchors the pattern to the
  // .gitignore's directory; otherwise it matches a name at any depth.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const body = globToRegex(line);
  if (body === undefined) return undefined;
  return { source: raw, negate, dirOnly, nameOnly: !anchored, re: new RegExp(`^${body}$`) };
}

/** Trailing spaces are dropped unless escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " " && line[end - 2] !== "\\") end--;
  return line.slice(0, end);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

/** Translate one gitignore glob (already stripped of `!`, leading and trailing `/`) to a regex body. */
function globToRegex(glob: string): string | undefined {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        let j = i;
        while (glob[j] === "*") j++;
        const atEnd = j === glob.length || glob[j] === "/";
        if (atStart && atEnd) {
          if (j === glob.length) {
            // `dir/**` matches everything inside; a lone `**` matches everything.
            out += ".*";
          } else {
            // `**/` matches zero or more directories.
            out += "(?:.*/)?";
            j++;
          }
          i = j;
          continue;
        }
        // Other runs of asterisks are plain `*`.
        out += "[^/]*";
        i = j;
        continue;
      }
      out += "[^/]*";
      i++;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const cls = readClass(glob, i);
      if (cls) {
        out += cls.regex;
        i = cls.end;
      } else {
        out += "\\[";
        i++;
      }
    } else if (c === "\\") {
      const next = glob[i + 1];
      if (next === undefined) return undefined; // a trailing backslash is invalid: git ignores the line
      out += escapeChar(next);
      i += 2;
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
}

/** `[abc]`, `[a-z]`, `[!x]` / `[^x]`; never matches `/`. Undefined when unclosed. */
function readClass(glob: string, start: number): { regex: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === "]" && !first) {
      return { regex: negate ? `[^/${body}]` : `(?!/)[${body}]`, end: i + 1 };
    }
    if (c === "\\" && i + 1 < glob.length) {
      body += classChar(glob[i + 1]!);
      i += 2;
    } else {
      body += c === "-" ? c : classChar(c);
      i++;
    }
    first = false;
  }
  return undefined;
}

/** A literal character inside a regex class. */
function classChar(c: string): string {
  return /[\\\]\[^-]/.test(c) ? "\\" + c : c;
}

function escapeChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? "\\" + c : c;
}

/** The verdict of one rule list for one path: undefined when no rule matched. */
export function matchRules(rules: readonly IgnoreRule[], relPath: string, isDir: boolean): boolean | undefined {
  let name: string | undefined;
  for (let k = rules.length - 1; k >= 0; k--) {
    const rule = rules[k]!;
    if (rule.dirOnly && !isDir) continue;
    let subject = relPath;
    if (rule.nameOnly) subject = name ??= relPath.slice(relPath.lastIndexOf("/") + 1);
    if (rule.re.test(subject)) return !rule.negate;
  }
  return undefined;
}

/** One .gitignore's rules and the directory they apply to. */
interface IgnoreLevel {
  /** The directory holding the file, relative to the matcher's base ("" for the base itself). */
  dir: string;
  rules: readonly IgnoreRule[];
}

/**
 * The rules in force in one directory: its own .gitignore plus every
 * ancestor's, up to the base. Immutable: `withRules` returns a new matcher
 * for a subdirectory, so a walk can hold one per open directory.
 */
export class IgnoreMatcher {
  private constructor(private readonly levels: readonly IgnoreLevel[]) {}

  static empty(): IgnoreMatcher {
    return new IgnoreMatcher([]);
  }

  /** Adds the rules of a .gitignore found in `dir` (relative to the base, "" for the base). */
  withRules(dir: string, rules: readonly IgnoreRule[]): IgnoreMatcher {
    if (rules.length === 0) return this;
    return new IgnoreMatcher([...this.levels, { dir, rules }]);
  }

  get isEmpty(): boolean {
    return this.levels.length === 0;
  }

  /** Whether `relPath` (relative to the base, `/`-separated) is ignored. */
  ignores(relPath: string, isDir: boolean): boolean {
    for (let k = this.levels.length - 1; k >= 0; k--) {
      const level = this.levels[k]!;
      let sub = relPath;
      if (level.dir !== "") {
        if (!relPath.startsWith(level.dir + "/")) continue;
        sub = relPath.slice(level.dir.length + 1);
      }
      const verdict = matchRules(level.rules, sub, isDir);
      if (verdict !== undefined) return verdict;
    }
    return false;
  }
}
