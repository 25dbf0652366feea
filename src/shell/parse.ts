// Splits a bash command line into the simple commands it would run, so the
// run policy can judge every part (`git status; rm -rf ~` is two commands).
// Pure: no I/O. Commands inside `$(…)`, backticks, heredoc bodies and nested
// `bash -c '…'` count too. Whatever cannot be read with certainty (a computed
// program name, eval, arithmetic, process substitution, case, functions,
// unbalanced quotes…) makes the result `uncertain`, and the caller asks.

/** One shell word after quote removal, with what bash would still expand in it. */
export interface Word {
  /** The value after quote removal; expansions are left in their source form. */
  text: string;
  /** The source text. */
  raw: string;
  /** Contains `$…`, `${…}`, `$(…)` or backticks: the value is only known at run time. */
  expanded: boolean;
  /** Contains an unquoted `*`, `?` or `[` (a pathname pattern). */
  glob: boolean;
  /** Contains an unquoted `{…}` (possible brace expansion). */
  brace: boolean;
  /** Starts with an unquoted `~` (tilde expansion). */
  tilde: boolean;
  /** Some part of it was quoted or escaped (so it is never a reserved word). */
  quoted: boolean;
}

export interface Redirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `&>`, `&>>`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd: number | null;
  /** The file, or null for fd duplication/closing (`2>&1`, `>&-`) and heredocs. */
  target: Word | null;
  /** Whether the target is opened for writing. */
  writes: boolean;
}

export interface Assignment {
  name: string;
  value: Word;
}

export interface SimpleCommand {
  assignments: Assignment[];
  /** The program and its arguments, after unwrapping `env`, `command`, `exec`, `nohup`, `time`, `nice`, `timeout`. */
  argv: Word[];
  redirects: Redirect[];
}

export interface ParseResult {
  /** Every simple command found (in order of appearance), including nested ones. */
  commands: SimpleCommand[];
  /** Why the line cannot be judged with certainty, or null. Commands before that point are still listed. */
  uncertain: string | null;
}

class Uncertain extends Error {}

const MAX_DEPTH = 8;
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
/** Reserved words that only separate commands for our purposes. */
const SEPARATOR_WORDS = new Set(["{", "}", "!", "if", "then", "elif", "else", "fi", "do", "done", "while", "until"]);
const UNSUPPORTED_WORDS: Record<string, string> = {
  case: "`case` statements are not analysed",
  select: "`select` loops are not analysed",
  function: "function definitions are not analysed",
  coproc: "`coproc` is not analysed",
  "[[": "`[[ … ]]` may evaluate arithmetic, which can run commands",
  "((": "arithmetic commands can run commands",
};
/** Builtins that run code we cannot see. */
const OPAQUE_PROGRAMS: Record<string, string> = {
  eval: "`eval` runs a string as a command",
  source: "`source` runs a script",
  ".": "`.` runs a script",
  trap: "`trap` runs a string as a command later",
  alias: "aliases change what later words mean",
  let: "`let` evaluates arithmetic, which can run commands",
  declare: "`declare` can evaluate arithmetic, which can run commands",
  typeset: "`typeset` can evaluate arithmetic, which can run commands",
  local: "`local` can evaluate arithmetic, which can run commands",
  readonly: "`readonly` can evaluate arithmetic, which can run commands",
  mapfile: "`mapfile -C` runs a callback",
  readarray: "`readarray -C` runs a callback",
  enable: "`enable` changes which builtins exist",
  hash: "`hash -p` changes which program a name runs",
  shopt: "`shopt` changes how the line is parsed",
  fc: "`fc` re-runs commands",
};
/** Variables that change which program runs or what a shell executes. */
const DANGEROUS_VAR =
  /^(\w*PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|GLOBIGNORE|BASH_XTRACEFD|EXECIGNORE|HOME|TMPDIR|LD_\w*|DYLD_\w*|BASH_FUNC_\w*|GIT_\w*|XDG_\w*|\w*PAGER|EDITOR|VISUAL|BROWSER|\w*_OPTIONS|\w*_CONFIG\w*|\w*RC|PYTHON\w*|PERL\w*|RUBY\w*|NPM_CONFIG_\w*|SSH_\w*|LESS\w*)$/i;
const SHELLS = new Set(["bash", "sh", "dash", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/sh", "/bin/dash", "/usr/bin/dash"]);

function newWord(): Word {
  return { text: "", raw: "", expanded: false, glob: false, brace: false, tilde: false, quoted: false };
}

type Token =
  | { t: "word"; word: Word }
  | { t: "op"; op: string }
  | { t: "redir"; op: string; fd: number | null }
  | { t: "newline" }
  | { t: "eof" };

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  literal: boolean;
}

/** Parse a command line. Never throws. */
export function parseShell(src: string): ParseResult {
  const commands: SimpleCommand[] = [];
  try {
    new Parser(src, commands, 0).parseScript(null);
    return { commands, uncertain: null };
  } catch (err) {
    if (err instanceof Uncertain) return { commands, uncertain: err.message };
    throw err;
  }
}

class Parser {
  private pos = 0;
  private heredocs: PendingHeredoc[] = [];

  constructor(
    private readonly src: string,
    private readonly out: SimpleCommand[],
    private readonly depth: number,
  ) {
    if (depth > MAX_DEPTH) throw new Uncertain("the command nests too deeply");
  }

  // ---- commands -------------------------------------------------------

  /**
   * Reads commands until the end, or until the `)` that closes a `$(`
   * (closer === ")"). Subshell parentheses are tracked for balance.
   */
  parseScript(closer: ")" | null): void {
    let words: Word[] = [];
    let redirects: Redirect[] = [];
    let atStart = true;
    let parens = 0;
    /** Inside `for NAME in …` up to the `do`: words are not a command. */
    let forHeader = 0;
    /** The previous token closed a group (`)`, `}`, `fi`, `done`): only redirections may follow. */
    let afterGroup = false;

    const flush = () => {
      if (words.length > 0 || redirects.length > 0) this.finish(words, redirects);
      words = [];
      redirects = [];
      atStart = true;
      afterGroup = false;
    };

    for (;;) {
      const tok = this.next();
      if (tok.t === "eof") {
        if (closer) throw new Uncertain("a `$(` is not closed");
        if (this.heredocs.length > 0) throw new Uncertain("a heredoc has no body");
        if (parens > 0) throw new Uncertain("a `(` is not closed");
        flush();
        return;
      }
      if (tok.t === "newline") {
        flush();
        this.readHeredocBodies();
        if (forHeader === 1) forHeader = 2;
        continue;
      }
      if (tok.t === "redir") {
        redirects.push(this.readRedirect(tok.op, tok.fd));
        continue;
      }
      if (tok.t === "op") {
        switch (tok.op) {
          case ";":
          case "&":
          case "&&":
          case "||":
          case "|":
          case "|&":
            if (words.length === 0 && redirects.length === 0 && atStart && !afterGroup && tok.op !== ";") {
              throw new Uncertain(`unexpected \`${tok.op}\``);
            }
            flush();
            if (forHeader === 1) forHeader = 2;
            continue;
          case "(":
            if (!atStart || words.length > 0) throw new Uncertain("a `(` after a word (function definition?) is not analysed");
            parens++;
            continue;
          case ")":
            flush();
            if (parens > 0) {
              parens--;
              afterGroup = true;
              atStart = false;
              continue;
            }
            if (closer === ")") return;
            throw new Uncertain("unbalanced `)`");
          default:
            throw new Uncertain(`\`${tok.op}\` is not analysed (case statements?)`);
        }
      }
      // A word.
      const w = tok.word;
      if (forHeader === 1) {
        // `for NAME in words…`: words before `;`/newline/`do` are expansions only.
        if (!w.quoted && w.text === "do") {
          forHeader = 0;
          atStart = true;
        }
        continue;
      }
      if (forHeader === 2) {
        if (!w.quoted && w.text === "do") {
          forHeader = 0;
          atStart = true;
          continue;
        }
        throw new Uncertain("a `for` loop without `do`");
      }
      if (atStart && words.length === 0 && !w.quoted) {
        if (afterGroup) throw new Uncertain(`unexpected word \`${w.text}\` after a group`);
        if (SEPARATOR_WORDS.has(w.text)) {
          flush();
          if (w.text === "}" || w.text === "fi" || w.text === "done") {
            afterGroup = true;
            atStart = false;
          }
          continue;
        }
        if (w.text === "for") {
          const name = this.next();
          if (name.t !== "word" || !/^[A-Za-z_]\w*$/.test(name.word.text) || name.word.quoted) {
            throw new Uncertain("this `for` loop is not analysed");
          }
          forHeader = 1;
          continue;
        }
        const why = UNSUPPORTED_WORDS[w.text];
        if (why) throw new Uncertain(why);
      }
      if (afterGroup) throw new Uncertain(`unexpected word \`${w.text}\` after a group`);
      words.push(w);
      atStart = false;
    }
  }

  /** A complete simple command: split assignments, unwrap wrappers, recurse into `bash -c`. */
  private finish(words: Word[], redirects: Redirect[]): void {
    const assignments: Assignment[] = [];
    let i = 0;
    for (; i < words.length; i++) {
      const a = asAssignment(words[i]!);
      if (!a) break;
      assignments.push(a);
    }
    let argv = words.slice(i);
    argv = unwrap(argv, assignments);
    for (const a of assignments) checkAssignment(a);

    const program = argv[0];
    if (program) {
      if (!isLiteral(program)) throw new Uncertain(`the program name \`${program.raw}\` is computed at run time`);
      const opaque = OPAQUE_PROGRAMS[program.text];
      if (opaque) {
        this.out.push({ assignments, argv, redirects });
        throw new Uncertain(opaque);
      }
      if (program.text === "export" || program.text === "unset") {
        for (const w of argv.slice(1)) {
          const name = w.text.split("=")[0] ?? "";
          if (DANGEROUS_VAR.test(name)) throw new Uncertain(`setting ${name} changes what commands run`);
        }
      }
      const script = shellScript(argv);
      if (script !== undefined) {
        // The shell itself is transparent: what counts is what it runs.
        if (assignments.length > 0 || redirects.length > 0) this.out.push({ assignments, argv: [], redirects });
        new Parser(script, this.out, this.depth + 1).parseScript(null);
        return;
      }
    }
    this.out.push({ assignments, argv, redirects });
  }

  private readRedirect(op: string, fd: number | null): Redirect {
    this.skipBlanks();
    const tok = this.next();
    if (tok.t !== "word") throw new Uncertain(`a \`${op}\` without a target`);
    const w = tok.word;
    if (op === "<<" || op === "<<-") {
      if (w.expanded) throw new Uncertain("a computed heredoc delimiter is not analysed");
      this.heredocs.push({ delimiter: w.text, stripTabs: op === "<<-", literal: w.quoted });
      return { op, fd, target: null, writes: false };
    }
    if (op === "<<<") return { op, fd, target: null, writes: false };
    if ((op === ">&" || op === "<&") && !w.quoted && /^(\d+-?|-)$/.test(w.text)) {
      return { op, fd, target: null, writes: false };
    }
    const writes = op !== "<" && op !== "<&";
    return { op, fd, target: w, writes };
  }

  private readHeredocBodies(): void {
    const pending = this.heredocs;
    this.heredocs = [];
    for (const h of pending) {
      const lines: string[] = [];
      let closed = false;
      while (this.pos < this.src.length) {
        let end = this.src.indexOf("\n", this.pos);
        if (end < 0) end = this.src.length;
        let line = this.src.slice(this.pos, end);
        this.pos = Math.min(end + 1, this.src.length);
        if (h.stripTabs) line = line.replace(/^\t+/, "");
        if (line === h.delimiter) {
          closed = true;
          break;
        }
        lines.push(line);
      }
      if (!closed) throw new Uncertain(`the heredoc \`${h.delimiter}\` is not closed`);
      // An unquoted delimiter means the body is expanded like a double-quoted string.
      if (!h.literal) new Parser(lines.join("\n"), this.out, this.depth + 1).scanExpandedText();
    }
  }

  /** Scan text that bash expands like the inside of double quotes (a heredoc body). */
  scanExpandedText(): void {
    const w = newWord();
    while (this.pos < this.src.length) {
      const c = this.src[this.pos]!;
      if (c === "\\") {
        this.pos += 2;
      } else if (c === "$") {
        this.readDollar(w, true);
      } else if (c === "`") {
        this.readBackticks(w, true);
      } else {
        this.pos++;
      }
    }
  }

  // ---- tokens ---------------------------------------------------------

  private skipBlanks(): void {
    for (;;) {
      const c = this.src[this.pos];
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\\" && this.src[this.pos + 1] === "\n") this.pos += 2;
      else return;
    }
  }

  private next(): Token {
    this.skipBlanks();
    const s = this.src;
    const c = s[this.pos];
    if (c === undefined) return { t: "eof" };
    if (c === "#") {
      while (this.pos < s.length && s[this.pos] !== "\n") this.pos++;
      return this.next();
    }
    if (c === "\n") {
      this.pos++;
      return { t: "newline" };
    }
    const three = s.slice(this.pos, this.pos + 3);
    const two = s.slice(this.pos, this.pos + 2);
    if (three === ";;&") throw new Uncertain("`;;&` (case statements) is not analysed");
    if (two === ";;" || two === ";&") throw new Uncertain("case statements are not analysed");
    if (two === "<(" || two === ">(") throw new Uncertain("process substitution is not analysed");
    if (two === "((" ) throw new Uncertain(UNSUPPORTED_WORDS["(("]!);
    for (const op of ["&&", "||", "|&"]) if (two === op) return this.op(op);
    if (three === "&>>") return this.redir("&>>", null, 3);
    if (two === "&>") return this.redir("&>", null, 2);
    if (c === ";" || c === "&" || c === "|" || c === "(" || c === ")") return this.op(c);
    if (c === "<" || c === ">") return this.readRedirOp(null);
    if (c === "{" && /^\{[A-Za-z_]\w*\}[<>]/.test(s.slice(this.pos, this.pos + 200))) {
      throw new Uncertain("`{var}>` redirections are not analysed");
    }
    const w = this.readWord();
    // `2>file`: a word of digits directly followed by < or > is a file descriptor.
    const after = s[this.pos];
    if ((after === "<" || after === ">") && /^\d+$/.test(w.raw)) return this.readRedirOp(Number(w.raw));
    return { t: "word", word: w };
  }

  private op(op: string): Token {
    this.pos += op.length;
    return { t: "op", op };
  }

  private redir(op: string, fd: number | null, len: number): Token {
    this.pos += len;
    return { t: "redir", op, fd };
  }

  private readRedirOp(fd: number | null): Token {
    const s = this.src.slice(this.pos, this.pos + 3);
    for (const op of ["<<<", "<<-", ">>", "<<", "<>", "<&", ">&", ">|", "<", ">"]) {
      if (s.startsWith(op)) {
        if ((op === "<" || op === ">") && s[1] === "(") throw new Uncertain("process substitution is not analysed");
        return this.redir(op, fd, op.length);
      }
    }
    throw new Uncertain("unexpected redirection");
  }

  // ---- words ----------------------------------------------------------

  private readWord(): Word {
    const s = this.src;
    const w = newWord();
    const start = this.pos;
    let braceOpen = false;
    let bracketOpen = false;
    if (s[this.pos] === "~") w.tilde = true;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (META.has(c)) break;
      if (c === "\\") {
        const n = s[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        w.quoted = true;
        if (n !== undefined) w.text += n;
        this.pos += 2;
      } else if (c === "'") {
        w.quoted = true;
        const end = s.indexOf("'", this.pos + 1);
        if (end < 0) throw new Uncertain("a single quote is not closed");
        w.text += s.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else if (c === '"') {
        w.quoted = true;
        this.pos++;
        this.readDoubleQuoted(w);
      } else if (c === "$" && s[this.pos + 1] === "'") {
        w.quoted = true;
        this.pos += 2;
        w.text += this.readAnsiC();
      } else if (c === "$" && s[this.pos + 1] === '"') {
        w.quoted = true;
        this.pos += 2;
        this.readDoubleQuoted(w);
      } else if (c === "$") {
        this.readDollar(w, false);
      } else if (c === "`") {
        this.readBackticks(w, false);
      } else {
        if (c === "*" || c === "?") w.glob = true;
        if (c === "[") bracketOpen = true;
        if (c === "]" && bracketOpen) w.glob = true;
        if (c === "{") braceOpen = true;
        if (c === "}" && braceOpen) w.brace = true;
        w.text += c;
        this.pos++;
      }
    }
    w.raw = s.slice(start, this.pos);
    if (s[this.pos] === "(" && /^[A-Za-z_]\w*\+?=$/.test(w.raw)) throw new Uncertain("array assignments are not analysed");
    return w;
  }

  /** After the opening `"`: up to and including the closing one. */
  private readDoubleQuoted(w: Word): void {
    const s = this.src;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === "\\") {
        const n = s[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        if (n === "$" || n === "`" || n === '"' || n === "\\") {
          w.text += n;
          this.pos += 2;
          continue;
        }
        w.text += c;
        this.pos++;
        continue;
      }
      if (c === "$") this.readDollar(w, true);
      else if (c === "`") this.readBackticks(w, true);
      else {
        w.text += c;
        this.pos++;
      }
    }
    throw new Uncertain("a double quote is not closed");
  }

  /** After `$'`: ANSI-C escapes, up to and including the closing quote. */
  private readAnsiC(): string {
    const s = this.src;
    let out = "";
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (c === "'") {
        this.pos++;
        return out;
      }
      if (c !== "\\") {
        out += c;
        this.pos++;
        continue;
      }
      const n = s[this.pos + 1];
      this.pos += 2;
      const simple: Record<string, string> = {
        n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v",
        "\\": "\\", "'": "'", '"': '"', "?": "?",
      };
      if (n === undefined) break;
      if (simple[n] !== undefined) {
        out += simple[n];
      } else if (n === "x" || n === "u" || n === "U") {
        const max = n === "x" ? 2 : n === "u" ? 4 : 8;
        const m = /^[0-9a-fA-F]+/.exec(s.slice(this.pos, this.pos + max));
        if (!m) out += "\\" + n;
        else {
          this.pos += m[0].length;
          out += String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff));
        }
      } else if (/[0-7]/.test(n)) {
        const m = /^[0-7]{0,2}/.exec(s.slice(this.pos, this.pos + 2))!;
        this.pos += m[0].length;
        out += String.fromCharCode(parseInt(n + m[0], 8) & 0xff);
      } else if (n === "c") {
        const ch = s[this.pos++];
        if (ch !== undefined) out += String.fromCharCode(ch.charCodeAt(0) & 0x1f);
      } else {
        out += "\\" + n;
      }
    }
    throw new Uncertain("a $'…' quote is not closed");
  }

  /** At a `$`: parameter expansion, command substitution, or a plain dollar sign. */
  private readDollar(w: Word, inDouble: boolean): void {
    const s = this.src;
    const n = s[this.pos + 1];
    if (n === "(") {
      if (s[this.pos + 2] === "(") throw new Uncertain("arithmetic expansion `$((…))` can run commands hidden in variables");
      w.expanded = true;
      w.text += "$(…)";
      this.pos += 2;
      const inner = new Parser(s, this.out, this.depth + 1);
      inner.pos = this.pos;
      inner.parseScript(")");
      this.pos = inner.pos;
      return;
    }
    if (n === "[") throw new Uncertain("arithmetic expansion `$[…]` is not analysed");
    if (n === "{") {
      this.readBraceParam(w);
      return;
    }
    const m = /^([A-Za-z_]\w*|[0-9]|[@*#?$!\-])/.exec(s.slice(this.pos + 1, this.pos + 200));
    if (m) {
      w.expanded = true;
      w.text += "$" + m[0];
      this.pos += 1 + m[0].length;
      return;
    }
    // A lone `$` is literal.
    void inDouble;
    w.text += "$";
    this.pos++;
  }

  /** `${…}`: only plain forms; anything that could evaluate arithmetic is uncertain. */
  private readBraceParam(w: Word): void {
    const s = this.src;
    const start = this.pos + 2;
    let i = start;
    let depth = 1;
    while (i < s.length && depth > 0) {
      const c = s[i]!;
      if (c === "'" || c === '"' || c === "`") throw new Uncertain("quotes inside `${…}` are not analysed");
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "$" && s[i + 1] === "{") {
        depth++;
        i += 2;
        continue;
      }
      if (c === "$" && s[i + 1] === "(") throw new Uncertain("command substitution inside `${…}` is not analysed");
      if (c === "}") depth--;
      i++;
    }
    if (depth > 0) throw new Uncertain("a `${` is not closed");
    const body = s.slice(start, i - 1);
    const plain = /^(#?([A-Za-z_]\w*|[0-9]+|[@*#?$!\-]))$/.test(body);
    const withOp = /^([A-Za-z_]\w*|[0-9]+|[@*])(:?[-=?+]|##?|%%?|\^\^?|,,?|\/\/?)(.*)$/s.exec(body);
    if (!plain && !withOp) throw new Uncertain(`the expansion \`\${${body}}\` is not analysed (it may evaluate arithmetic)`);
    if (withOp && /\$\{/.test(withOp[3] ?? "")) throw new Uncertain("nested `${…}` is not analysed");
    w.expanded = true;
    w.text += "${" + body + "}";
    this.pos = i;
  }

  /** At a backtick: the inner text (with its backslash escapes undone) is parsed as commands. */
  private readBackticks(w: Word, inDouble: boolean): void {
    const s = this.src;
    let i = this.pos + 1;
    let inner = "";
    for (;;) {
      const c = s[i];
      if (c === undefined) throw new Uncertain("a backtick is not closed");
      if (c === "`") break;
      if (c === "\\") {
        const n = s[i + 1];
        if (n === "$" || n === "`" || n === "\\" || (inDouble && n === '"')) {
          inner += n;
          i += 2;
          continue;
        }
      }
      inner += c;
      i++;
    }
    this.pos = i + 1;
    w.expanded = true;
    w.text += "`…`";
    new Parser(inner, this.out, this.depth + 1).parseScript(null);
  }
}

// ---- command-level helpers ------------------------------------------------

/** A word with nothing left for bash to expand. */
export function isLiteral(w: Word): boolean {
  return !w.expanded && !w.glob && !w.brace && !w.tilde;
}

function asAssignment(w: Word): Assignment | null {
  const m = /^([A-Za-z_]\w*)(\+?=)/.exec(w.raw);
  if (!m) {
    if (/^[A-Za-z_]\w*\[/.test(w.raw) && /\]\+?=/.test(w.raw)) throw new Uncertain("array element assignments evaluate arithmetic");
    return null;
  }
  const eq = w.text.indexOf("=");
  const value: Word = { ...w, text: w.text.slice(eq + 1), raw: w.raw.slice(m[0].length), tilde: w.text[eq + 1] === "~" };
  return { name: m[1]!, value };
}

function checkAssignment(a: Assignment): void {
  if (DANGEROUS_VAR.test(a.name)) throw new Uncertain(`setting ${a.name} changes what commands run`);
}

/**
 * Strip wrappers that only run the rest of the line: `env X=1 cmd`,
 * `command cmd`, `exec cmd`, `nohup cmd`, `time cmd`, `nice -n 5 cmd`,
 * `timeout 5 cmd`. Options we do not know make the line uncertain.
 */
function unwrap(argv: Word[], assignments: Assignment[]): Word[] {
  for (let guard = 0; guard < 16 && argv.length > 0; guard++) {
    const head = argv[0]!;
    if (!isLiteral(head)) return argv;
    const rest = argv.slice(1);
    switch (head.text) {
      case "env": {
        let i = 0;
        for (; i < rest.length; i++) {
          const w = rest[i]!;
          if (w.text === "--") {
            i++;
            break;
          }
          if (w.text === "-i" || w.text === "-" || w.text === "--ignore-environment" || w.text === "-0" || w.text === "--null") continue;
          if (w.text === "-u" || w.text === "--unset") {
            i++;
            continue;
          }
          if (/^(-u.+|--unset=.*)$/.test(w.text)) continue;
          if (w.text.startsWith("-")) throw new Uncertain(`\`env ${w.text}\` is not analysed`);
          const a = asAssignment(w);
          if (!a) break;
          assignments.push(a);
        }
        argv = rest.slice(i);
        continue;
      }
      case "command":
      case "builtin":
        if (rest[0]?.text.startsWith("-")) {
          if (rest[0].text === "-p") {
            argv = rest.slice(1);
            continue;
          }
          return argv; // `command -v x`: a query, judged as the program `command`
        }
        argv = rest;
        continue;
      case "exec": {
        let i = 0;
        while (i < rest.length && /^-[cl]+$/.test(rest[i]!.text)) i++;
        if (rest[i]?.text === "-a") throw new Uncertain("`exec -a` is not analysed");
        argv = rest.slice(i);
        continue;
      }
      case "nohup":
        argv = rest[0]?.text === "--" ? rest.slice(1) : rest;
        continue;
      case "time": {
        let i = 0;
        while (rest[i]?.text === "-p" || rest[i]?.text === "--") i++;
        argv = rest.slice(i);
        continue;
      }
      case "nice": {
        let i = 0;
        if (rest[0]?.text === "-n") i = 2;
        else if (/^(-n?-?\d+|--adjustment=-?\d+)$/.test(rest[0]?.text ?? "")) i = 1;
        if (rest[i]?.text === "--") i++;
        if (rest[i]?.text.startsWith("-")) throw new Uncertain(`\`nice ${rest[i]!.text}\` is not analysed`);
        argv = rest.slice(i);
        continue;
      }
      case "timeout": {
        let i = 0;
        while (i < rest.length && rest[i]!.text.startsWith("-")) {
          const o = rest[i]!.text;
          if (o === "--") {
            i++;
            break;
          }
          if (o === "-s" || o === "-k" || o === "--signal" || o === "--kill-after") i += 2;
          else if (/^(--preserve-status|--foreground|-v|--verbose|-s\w+|-k\S+|--signal=\S+|--kill-after=\S+)$/.test(o)) i++;
          else throw new Uncertain(`\`timeout ${o}\` is not analysed`);
        }
        if (!rest[i] || !/^\d+(\.\d+)?[smhd]?$/.test(rest[i]!.text)) throw new Uncertain("this `timeout` command is not analysed");
        argv = rest.slice(i + 1);
        continue;
      }
      default:
        return argv;
    }
  }
  return argv;
}

/** For `bash -c 'script'` (and sh/dash): the script text, when it is literal. */
function shellScript(argv: Word[]): string | undefined {
  if (!SHELLS.has(argv[0]!.text)) return undefined;
  let sawC = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    const t = w.text;
    if (t === "--" || t === "-") {
      if (!sawC) return undefined;
      continue;
    }
    if (/^[-+]o$/.test(t)) {
      i++;
      continue;
    }
    if (t === "--norc" || t === "--noprofile" || t === "--posix" || t === "--login") continue;
    if (/^[-+][a-zA-Z]+$/.test(t)) {
      if (t.startsWith("-") && t.includes("c")) sawC = true;
      if (/[is]/.test(t.slice(1)) && t.startsWith("-")) return undefined;
      continue;
    }
    if (t.startsWith("-")) throw new Uncertain(`\`${argv[0]!.text} ${t}\` is not analysed`);
    if (!sawC) return undefined; // `bash script.sh`: the program is bash
    if (!isLiteral(w)) throw new Uncertain(`the script given to \`${argv[0]!.text} -c\` is computed at run time`);
    return w.text;
  }
  if (sawC) throw new Uncertain(`\`${argv[0]!.text} -c\` without a script`);
  return undefined;
}
