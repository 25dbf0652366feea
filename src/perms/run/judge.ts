// Judges the simple commands of one parsed line: for each, what grants it (a
// --allow-run flag, a rules-file pattern, a session prefix, or the read-only
// class) or why it must be asked about. Every command must be allowed on its
// own: `--allow-run=git` grants `git status && git diff`, not `git status; rm x`.
// Path checks go through PathChecker (paths.ts); program knowledge is in
// programs.ts.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isLiteral, type ParseResult, type Redirect, type SimpleCommand, type Word } from "../../shell/parse.ts";
import { gitConfigProblemIn } from "../git-config.ts";
import { resolveFrom } from "../workspace.ts";
import { matchesPattern, type CommandPattern } from "./patterns.ts";
import { isCd, PathChecker, possibleDirectories, SAFE_WRITE_DEVICES, type PathDenies } from "./paths.ts";
import {
  GIT_MESSAGE_SUBCOMMANDS, PACKAGE_INSTALLERS, prefixAssignment, READ_ONLY, RISKY_OPTION_NAMES, safeAssignment, SESSION_FORBID, SINGLE_DASH_FLAGS,
  changesWhatItIsGiven,
  SUBCOMMAND_PROGRAMS, type ReadOnlySpec,
} from "./programs.ts";
import { isModuleRun, isScriptProgram, prefixAllowed } from "./prefix.ts";
import { gitRuns } from "./git-runs.ts";
import { parseShell } from "../../shell/parse.ts";

/** What let a simple command run unasked. */
export type RunGrant = "flag" | "rules" | "session" | "read-only";

export interface Judge {
  /** Null when no workspace is known: then no path argument or file redirect passes. */
  root: string | null;
  /** --allow-run=git,bun */
  programs: Set<string>;
  /** Rules-file patterns. */
  patterns: CommandPattern[];
  /**
   * Session prefixes ("always allow commands starting with `touch`") cover
   * only arguments inside the workspace: the person approved `touch a.txt`,
   * not `touch /tmp/x` nor a link that leads out.
   */
  sessionPatterns: CommandPattern[];
  /** Exact commands allowed for the session ("always allow `run:rm -rf build`"): matched word for word, as a rules file's. */
  sessionExact?: CommandPattern[];
  deny: PathDenies;
  /** Read-only commands run unasked: only when commands are sandboxed. */
  readOnlyUnasked: boolean;
}

export interface CommandJudgement {
  cmd: SimpleCommand;
  /** What allows it; null when it must be asked about (then `why` says why). */
  grantedBy: RunGrant | null;
  why: string | null;
  /** It only reads inside the workspace (whatever granted it): the line may run with the workspace read-only. */
  readOnly: boolean;
  /** The programs a grant must name for it to run, when not its own (what git is handed to run); [] when no name would do. */
  needs?: string[];
}

/** Every simple command of the line, judged. */
export function judgeLine(parsed: ParseResult, judge: Judge): { judgements: CommandJudgement[]; paths: PathChecker } {
  const cwds = judge.root ? possibleDirectories(parsed.commands, judge.root) : [];
  const paths = new PathChecker(judge.root, judge.deny, cwds, parsed.commands.some(isCd));
  // `{ git log; git status; } > log.txt`: the group's redirection is the granted commands' own.
  let lineGrant: RunGrant | null = null;
  for (const c of parsed.commands) {
    lineGrant = flagGrant(c, judge) ?? (sessionWords(c, judge) > 0 ? "session" : null);
    if (lineGrant) break;
  }
  const judgements = parsed.commands.map((cmd): CommandJudgement => {
    if (cmd.argv.length === 0 && lineGrant) {
      const why = redirectsInside(cmd.redirects, paths);
      return { cmd, grantedBy: why ? null : lineGrant, why, readOnly: redirectsReadOnly(cmd.redirects, paths) === null };
    }
    return judgeCommand(cmd, judge, paths);
  });
  return { judgements, paths };
}

function judgeCommand(cmd: SimpleCommand, judge: Judge, paths: PathChecker): CommandJudgement {
  // Whether it only reads, whatever grants it: that decides the read-only workspace.
  const readOnlyWhy = readOnlyProblem(cmd, judge, paths);
  const readOnly = readOnlyWhy === null;
  const flag = flagGrant(cmd, judge);
  if (flag) {
    const redirect = redirectsInside(cmd.redirects, paths);
    const handed = redirect ? null : gitRunsProblem(cmd, judge, paths);
    const why = redirect ?? handed?.why ?? null;
    return { cmd, grantedBy: why ? null : flag, why, readOnly, ...(handed ? { needs: handed.needs } : {}) };
  }
  // `NODE_ENV=test npm test`: a variable that only picks a mode leaves the prefix covering its command.
  const unsafe = cmd.assignments.some((a) => !prefixAssignment(a.name));
  let sessionWhy: string | null = null;
  const session = sessionWords(cmd, judge);
  if (session > 0 && !unsafe) {
    sessionWhy = sessionProblem(cmd, session, judge, paths);
    if (sessionWhy === null) return { cmd, grantedBy: "session", why: null, readOnly };
  }
  if (readOnly) {
    const name = cmd.argv[0]?.text;
    // The read-only class runs unasked only inside the sandbox (cd and bare assignments are the shell's own).
    if (name && READ_ONLY[name] && !judge.readOnlyUnasked && !isCd(cmd)) {
      return { cmd, grantedBy: null, why: sessionWhy ?? `\`${name}\` only reads, but with no sandbox for commands every command asks`, readOnly };
    }
    return { cmd, grantedBy: "read-only", why: null, readOnly };
  }
  return { cmd, grantedBy: null, why: sessionWhy ?? notGranted(cmd, paths) ?? readOnlyWhy, readOnly };
}

/** For a program outside the read-only class, say what matters most: `rm -rf /` is not only "not granted", it reaches outside. */
function notGranted(cmd: SimpleCommand, paths: PathChecker): string | null {
  const name = cmd.argv[0]?.text;
  if (!name || READ_ONLY[name] || isCd(cmd) || cmd.assignments.some((a) => !prefixAssignment(a.name))) return null;
  // Not its words that merely name a program (`npm install`: install is also /usr/bin/install): that matters only to
  // a session prefix, which covers the rest of the line (sessionProblem), not to a question about the program itself.
  const outside = argumentsInside(cmd, 1, paths, false);
  return `\`${name}\` is not granted${outside ? `, and ${outside.replace(/^`[^`]*` /, "it ")}` : ""}`;
}

/** Why a session prefix that names the command's leading words does not cover the rest of it, or null. */
function sessionProblem(cmd: SimpleCommand, session: number, judge: Judge, paths: PathChecker): string | null {
  // After a `cd` the words are read from a directory the person never saw (`cd .git/hooks && ln -s …`).
  if (paths.hasCd) return "a session prefix does not cover commands in a line that changes directory";
  // Without an OS sandbox nothing backs the word checks up: the prefix covers itself alone.
  if (!judge.readOnlyUnasked && cmd.argv.length > session) return "with no sandbox for commands, a session prefix covers only the words it names";
  return gitConfigProblem(cmd, judge, paths) ?? argumentsInside(cmd, session, paths) ?? redirectsInside(cmd.redirects, paths);
}

/** Why the command is not in the read-only class (only reads inside the workspace), or null when it is. */
function readOnlyProblem(cmd: SimpleCommand, judge: Judge, paths: PathChecker): string | null {
  const unsafe = cmd.assignments.find((a) => !safeAssignment(a.name));
  if (unsafe) return `setting ${unsafe.name} can change which program or configuration runs`;
  const program = cmd.argv[0];
  if (!program) return redirectsReadOnly(cmd.redirects, paths);
  const name = program.text;
  if (isCd(cmd)) return paths.cdTargetOk(cmd) ? redirectsReadOnly(cmd.redirects, paths) : `\`cd\` may leave the workspace`;
  const spec = READ_ONLY[name];
  // What else is wrong is said only when asking (notGranted): this runs for granted commands too.
  if (!spec) return `\`${name}\` is not granted`;
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

/**
 * A git command line that hands git a program to run (`-c core.pager=…`,
 * `difftool -x`, `--upload-pack`, a `!` alias: programs.ts, GIT_PROGRAM_*)
 * is judged as running that program too: granting git is not granting what
 * git is told to run. Null when there is none, or all of it is allowed.
 */
function gitRunsProblem(cmd: SimpleCommand, judge: Judge, paths: PathChecker): { why: string; needs: string[] } | null {
  const elsewhere = gitRepositoryElsewhere(cmd, paths);
  if (elsewhere) return { why: `\`git\` ${elsewhere}: that repository's config (aliases, pagers, hooks) may run programs, and bunker does not read it beforehand`, needs: [] };
  for (const run of gitRuns(cmd.argv)) {
    const via = `\`git ${run.via}\``;
    if (run.command === null) return { why: `${via} makes git run programs bunker cannot judge beforehand`, needs: [] };
    const parsed = parseShell(run.command);
    if (parsed.uncertain) return { why: `${via} makes git run \`${run.command}\`, which bunker cannot analyse (${parsed.uncertain})`, needs: [] };
    for (const inner of parsed.commands) {
      const j = judgeCommand(inner, judge, paths);
      const name = inner.argv[0]?.text;
      if (!j.grantedBy) return { why: `${via} makes git run \`${name ?? run.command}\`: ${j.why ?? "not granted"}`, needs: j.needs ?? (name ? [name] : []) };
    }
  }
  return null;
}

/** Environment variables that point git at another repository or config file. */
const GIT_ELSEWHERE_ENV = new Set(["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"]);

/**
 * How a git command uses a repository other than the workspace's own, whose
 * .git the sandbox keeps read-only and the write rules guard: `--git-dir`,
 * `--work-tree`, `-C DIR`, a `GIT_DIR=` in front, or a `cd` earlier in the
 * line. Its config may have been written by the same line (a red team ran
 * `git init --bare ev && git log … >> ev/config && git --git-dir=ev x`, an
 * alias planted and run under --allow-run=git), so it is not granted by a
 * grant of git alone. Null for the workspace's own repository.
 */
function gitRepositoryElsewhere(cmd: SimpleCommand, paths: PathChecker): string | null {
  if (cmd.argv[0]?.text !== "git") return null;
  const env = cmd.assignments.find((a) => GIT_ELSEWHERE_ENV.has(a.name));
  if (env) return `is pointed at another repository (\`${env.name}=\`)`;
  for (let i = 1; i < cmd.argv.length; i++) {
    const t = cmd.argv[i]!.text;
    if (!t.startsWith("-")) break;
    const [name, inline] = t.startsWith("--") && t.includes("=") ? [t.slice(0, t.indexOf("=")), t.slice(t.indexOf("=") + 1)] : [t, undefined];
    const takesValue = name === "-c" || name === "-C" || name === "--git-dir" || name === "--work-tree" || name === "--namespace" || name === "--config-env";
    const value = inline ?? (takesValue ? cmd.argv[++i]?.text : undefined);
    if (name === "--git-dir" || name === "--work-tree" || (name === "-C" && value !== ".")) return `is pointed at another repository (\`${name} ${value ?? ""}\`)`;
    if (/^-C./.test(t) && t !== "-C.") return `is pointed at another repository (\`${t}\`)`;
  }
  if (paths.hasCd) return "runs after a `cd` in the same line, in a repository bunker did not look at";
  return null;
}

/** Granted by --allow-run ("flag"), a rules-file pattern ("rules") or an exact command for the session: any arguments (the sandbox confines what they do). */
function flagGrant(cmd: SimpleCommand, judge: Judge): "flag" | "rules" | "session" | null {
  const program = cmd.argv[0];
  if (!program) return null;
  if (judge.programs.has(program.text)) return "flag";
  if (judge.patterns.some((p) => matchesPattern(cmd.argv, p))) return "rules";
  return judge.sessionExact?.some((p) => matchesPattern(cmd.argv, p)) ? "session" : null;
}

/** How many leading words of `cmd` the longest matching session prefix names (0: none matches). */
function sessionWords(cmd: SimpleCommand, judge: Judge): number {
  if (judge.sessionPatterns.length === 0) return 0;
  // The command's own leading words too: a pattern `git` must not cover `git config …`.
  const leading = cmd.argv.slice(0, 3).map((w) => w.text);
  if (!prefixAllowed(leading)) return 0;
  // `git -C . config …`: an option before the subcommand hides which subcommand runs.
  if (SUBCOMMAND_PROGRAMS.has(leading[0] ?? "") && leading[1]?.startsWith("-")) return 0;
  const matching = judge.sessionPatterns.filter(
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
export function argumentsInside(cmd: SimpleCommand, granted: number, paths: PathChecker, programNames = true): string | null {
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
    const problem = plainWordProblem(t, w, paths, programNames) ?? (changesTrees(cmd) ? protectedHolder(w, paths) : null);
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
    // The value named as itself in what is said ("whose value is /tmp/x"); the whole option follows in brackets.
    const problem = plainWordProblem(t.slice(eq + 1), { ...w, text: t.slice(eq + 1), raw: w.raw.slice(w.raw.indexOf("=") + 1), glob: false, tilde: false }, paths);
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
export function isRiskyOption(flag: string): boolean {
  const name = flag.replace(/^--?/, "").toLowerCase();
  if (name.length >= 3 && RISKY_OPTION_NAMES.some((full) => full.startsWith(name))) return true;
  const padded = `-${name}-`;
  // `--userconfig`, `--globalconfig`, `--tsconfig`: a config file by another name.
  if (name.split("-").some((part) => part.endsWith("config"))) return true;
  return RISKY_OPTION_NAMES.some((risky) => padded.includes(`-${risky}-`));
}

/** Why a word is not a plain file name inside the workspace, or null. */
function plainWordProblem(t: string, w: Word, paths: PathChecker, programNames = true): string | null {
  if (t === "-") return "reads from stdin, where a script could come from";
  if (!(w.glob ? PLAIN_GLOB : PLAIN_WORD).test(t)) {
    return /[:@]/.test(t) ? `names ${w.raw}, which may be a host, a URL or a file to send` : `has an argument that is not a plain word (${w.raw})`;
  }
  if (programNames && !t.includes("/") && Bun.which(t) !== null) return `names ${w.raw}, which is also the name of a program it could run`;
  const writeProblem = paths.writeProblem(w);
  if (writeProblem) return `names ${w.raw}, ${writeProblem}`;
  // Inside, but a program all the same (`git clone -u ./x.sh`, `--pre ./x.sh`).
  if (programNames && paths.executable(w)) return `names ${w.raw}, an executable file it could run`;
  return null;
}

/** `rm`, `cp`, `npx rimraf`, `git clean`: a program that changes or removes what it is given (programs.ts). */
function changesTrees(cmd: SimpleCommand): boolean {
  return changesWhatItIsGiven(cmd.argv.slice(0, 3).map((w) => w.text));
}

/** The root, or a folder holding .git or .bunker: a program that copies onto it or removes it (changesTrees) reaches them. */
function protectedHolder(w: Word, paths: PathChecker): string | null {
  return paths.holdsProtected(w) ? `names ${w.raw}, a folder holding .git or .bunker (or the workspace itself)` : null;
}

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

/** The repository's own config could make even `git diff` run a program; after a `cd`, a nested repository's too. */
function gitConfigProblem(cmd: SimpleCommand, judge: Judge, paths: PathChecker): string | null {
  if (cmd.argv[0]?.text !== "git" || judge.root === null) return null;
  for (const dir of paths.cwds) {
    const problem = gitConfigProblemIn(dir);
    if (problem) return problem;
  }
  return null;
}

/** Granted commands may read and write files inside the workspace (not .git or .bunker). */
function redirectsInside(redirects: Redirect[], paths: PathChecker): string | null {
  for (const r of redirects) {
    if (!r.target) continue;
    if (r.writes) {
      const problem = paths.writeProblem(r.target);
      if (problem) return `the redirection to ${r.target.raw} writes ${problem}`;
    } else if (!paths.readable(r.target)) {
      return `the redirection from ${r.target.raw} reads outside the workspace`;
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


/** Whether a grant (flag, rules file or session prefix) names the command, whether or not its redirections then pass. */
export function isGranted(cmd: SimpleCommand, judge: Judge): boolean {
  return flagGrant(cmd, judge) !== null || sessionWords(cmd, judge) > 0;
}
