// The longest plain-ASCII run that every match of a JavaScript regex must
// contain, found without running the regex. grep looks for it in a file's
// raw bytes first (a fast memchr-style search) and only decodes and runs the
// regex on files that contain it: the trick that keeps grep near ripgrep.
// Conservative by design: when unsure, a run is cut, never extended, and a
// top-level alternation gives no literal at all.

/** Escapes that stand for one literal character. */
const LITERAL_ESCAPES: Record<string, string> = { t: "\t", n: "\n", r: "\r", f: "\f", v: "\v" };

export function requiredLiteral(pattern: string, ignoreCase: boolean): string | undefined {
  const runs: string[] = [];
  let run = "";
  const cut = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "|") return undefined; // top-level alternation: no single required literal
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return undefined;
      i += 2;
      if (next in LITERAL_ESCAPES) run += LITERAL_ESCAPES[next];
      else if (/[^A-Za-z0-9]/.test(next) && isAscii(next)) run += next;
      else {
        cut(); // \d \w \s \b \1 \k<x> \u0041 \cX …: not a literal we can vouch for
        continue;
      }
      i = applyQuantifier(pattern, i);
      continue;
    }
    if (c === "(") {
      cut();
      i = skipGroup(pattern, i);
      if (i < 0) return undefined;
      continue;
    }
    if (c === "[") {
      cut();
      i = skipClass(pattern, i);
      if (i < 0) return undefined;
      continue;
    }
    if (c === "." || c === "^" || c === "$" || c === ")" || c === "]") {
      cut();
      i++;
      continue;
    }
    if (c === "*" || c === "+" || c === "?" || (c === "{" && quantifierAt(pattern, i))) {
      // A quantifier with nothing literal before it (after a group or class).
      cut();
      i = skipQuantifier(pattern, i);
      continue;
    }
    if (!isAscii(c)) {
      cut();
      i++;
      continue;
    }
    run += c;
    i++;
    i = applyQuantifier(pattern, i);
  }
  cut();

  // Case-insensitive: only a run without letters is the same in every case.
  const usable = ignoreCase ? runs.filter((r) => !/[A-Za-z]/.test(r)) : runs;
  let best: string | undefined;
  for (const r of usable) if (!best || r.length > best.length) best = r;
  return best;

  /**
   * Handles a quantifier right after the literal character just added to
   * `run`: `?`, `*`, `{0,…}` make it optional (dropped); `+`, `{n≥1}` keep one
   * copy. Either way the run cannot continue past a quantifier.
   */
  function applyQuantifier(p: string, at: number): number {
    const q = p[at];
    if (q === "*" || q === "?" || q === "+" || (q === "{" && quantifierAt(p, at))) {
      const min = q === "+" ? 1 : q === "{" ? Number(/^\{(\d+)/.exec(p.slice(at))![1]) : 0;
      if (min === 0) run = run.slice(0, -1);
      cut();
      return skipQuantifier(p, at);
    }
    return at;
  }
}

function isAscii(c: string): boolean {
  return c.charCodeAt(0) < 0x80;
}

/** `{n}`, `{n,}`, `{n,m}` at `at` (otherwise `{` is a literal brace in JS). */
function quantifierAt(p: string, at: number): boolean {
  return /^\{\d+(,\d*)?\}/.test(p.slice(at, at + 24));
}

/** Index after a quantifier at `at`, including a lazy `?`. */
function skipQuantifier(p: string, at: number): number {
  let i = at;
  if (p[i] === "{") i = p.indexOf("}", i) + 1;
  else i++;
  if (p[i] === "?") i++;
  return i;
}

/** Index after the group opening at `at`, or -1 when unbalanced. */
function skipGroup(p: string, at: number): number {
  let depth = 0;
  let i = at;
  while (i < p.length) {
    const c = p[i]!;
    if (c === "\\") i += 2;
    else if (c === "[") {
      i = skipClass(p, i);
      if (i < 0) return -1;
    } else {
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) return i + 1;
      i++;
    }
  }
  return -1;
}

/** Index after the character class opening at `at`, or -1 when unclosed. */
function skipClass(p: string, at: number): number {
  let i = at + 1;
  if (p[i] === "^") i++;
  if (p[i] === "]") return i + 1; // `[]` matches nothing; `[^]` anything
  while (i < p.length) {
    if (p[i] === "\\") i += 2;
    else if (p[i] === "]") return i + 1;
    else i++;
  }
  return -1;
}
