// The one evaluation of a command line: parsed once, every simple command
// judged once, and one structured answer that the policy, the approval
// prompt, run_bash (read-only workspace), the no-prompt hint and
// permission_denials all read. Anything uncertain asks.
import { basename } from "node:path";
import { isLiteral, parseShell, type ParseResult, type SimpleCommand } from "../../shell/parse.ts";
import type { Grants } from "../policy.ts";
import type { Verdict } from "../types.ts";
import { argumentsInside, isGranted, judgeLine, type CommandJudgement, type Judge, type RunGrant } from "./judge.ts";
import { gitRuns } from "./git-runs.ts";
import { isCd } from "./paths.ts";
import { matchesPattern, parsePattern, parsePatterns, type CommandPattern, type RunRules } from "./patterns.ts";
import { prefixOf } from "./prefix.ts";
import { changesWhatItIsGiven, READ_ONLY, RUNS_ARGUMENTS } from "./programs.ts";

export interface RunContext {
  /** The workspace root; null when none is known (then no path argument or file redirection passes). */
  root: string | null;
  grants: Grants;
  /** Prefixes the person allowed for the session ("always allow commands starting with …"). */
  sessionPrefixes?: readonly string[];
  /** Exact commands the person allowed for the session ("always allow `run:rm -rf build`"): those words alone. */
  sessionExact?: readonly string[];
  /** Whether read-only commands may run without asking (only when run_bash is sandboxed). Default true. */
  readOnlyUnasked?: boolean;
}

/** One simple command of the line and what decided it (machine-readable: permission_denials carries these). */
export interface CommandDecision {
  /** The command as written (assignments, program and arguments). */
  command: string;
  verdict: Verdict;
  /** What allowed it: --allow-run ("flag"), a rules-file pattern ("rules"), a session prefix, or the read-only class. */
  granted_by?: RunGrant;
  /** Why it is asked about or denied. */
  reason?: string;
}

export interface RunEvaluation {
  verdict: Verdict;
  /** The first reason (always set unless allowed). */
  reason?: string;
  commands: CommandDecision[];
  /** Up to three distinct reasons, for the prompt. */
  reasons: string[];
  /**
   * The prefixes worth offering for "don't ask again for … commands": one for each simple command not yet
   * covered that a prefix would cover safely (`npm run lint` and `git add` in `npm run lint && git add a`);
   * [] offers none.
   */
  prefixes: string[];
  /**
   * What "always allow" saves for them (rules-file entries, for this workspace): `run:PREFIX *`, but the exact command
   * for a program that deletes or overwrites what it is given (`run:rm -rf build`, not `run:rm *`: reviewer's R11-14);
   * none for such a command whose words are not all plain.
   */
  saves: string[];
  /** Every command only reads inside the workspace: the line may run with the workspace mounted read-only. */
  readOnly: boolean;
  /** The flag that would grant the line, for the no-prompt denial. */
  hint: string;
  /** The line as parsed, when asked (the question reads what the sandbox would keep from it: sandbox-needs.ts). */
  parsed?: ParseResult;
}

export function evaluateRun(command: string, ctx: RunContext): RunEvaluation {
  const { grants } = ctx;
  const deny = grants.deny.run;
  const nothing = { commands: [], reasons: [], prefixes: [], saves: [], readOnly: false };
  if (deny.all) {
    const reason = "running commands is denied by --deny-run";
    return { ...nothing, verdict: "deny", reason, reasons: [reason], hint: "" };
  }
  const parsed = parseShell(command);
  for (const cmd of parsed.commands) {
    const by = deniedBy(cmd, deny);
    if (by) {
      const reason = `running \`${by}\` is denied by --deny-run or a deny rule`;
      return { ...nothing, verdict: "deny", reason, reasons: [reason], commands: [{ command: text(cmd), verdict: "deny", reason }], hint: "" };
    }
  }
  if (parsed.uncertain) {
    const reason = `bunker cannot analyse this command line: ${parsed.uncertain}`;
    // A bare --allow-run grants even what we cannot read, unless a denial might be hidden in it.
    const denies = deny.programs.length > 0 || deny.patterns.length > 0;
    if (grants.allow.run.all && !denies) return { ...nothing, verdict: "allow", commands: [{ command, verdict: "allow", granted_by: "flag" }], hint: "" };
    return { ...nothing, verdict: "ask", reason, reasons: [reason], hint: `--allow-run (${reason})`, parsed };
  }
  const judge: Judge = {
    root: ctx.root,
    programs: new Set(grants.allow.run.programs),
    patterns: parsePatterns(grants.allow.run.patterns),
    sessionPatterns: parsePatterns([...(ctx.sessionPrefixes ?? [])], true),
    ...(ctx.sessionExact?.length ? { sessionExact: parsePatterns([...ctx.sessionExact]) } : {}),
    deny: { read: grants.deny.read, write: grants.deny.write, ...(grants.protect ? { protect: grants.protect } : {}) },
    readOnlyUnasked: ctx.readOnlyUnasked ?? true,
  };
  const { judgements } = judgeLine(parsed, judge);
  const readOnly = judgements.length > 0 && judgements.every((j) => j.readOnly);
  if (grants.allow.run.all) {
    const commands = judgements.map((j): CommandDecision => ({ command: text(j.cmd), verdict: "allow", granted_by: j.grantedBy === "read-only" ? "read-only" : "flag" }));
    return { verdict: "allow", commands, reasons: [], prefixes: [], saves: [], readOnly, hint: "" };
  }
  const commands = judgements.map((j): CommandDecision =>
    j.grantedBy ? { command: text(j.cmd), verdict: "allow", granted_by: j.grantedBy } : { command: text(j.cmd), verdict: "ask", reason: j.why ?? "not granted" },
  );
  const failures = judgements.filter((j) => !j.grantedBy);
  if (failures.length === 0) return { verdict: "allow", commands, reasons: [], prefixes: [], saves: [], readOnly, hint: "" };
  const reasons = [...new Set(failures.map((f) => f.why ?? "not granted"))].slice(0, 3);
  const offered = offeredPrefixes(parsed, failures, judge);
  const prefixes = [...new Set(offered.map((c) => c.prefix))];
  return { verdict: "ask", reason: reasons[0], commands, reasons, prefixes, saves: savedRules(offered), readOnly, hint: grantHint(failures, grants), parsed };
}

/**
 * The prefix of each command nothing covers yet (`ls && echo hi > x.txt`
 * offers `echo`, not `ls`; `npm run lint && git add a` offers both), each
 * only when it would cover its own command with the others in force: none
 * when only arguments or redirections of covered commands leave the
 * workspace, nor when the prefix would not cover its command (`ls /tmp >
 * x.txt`, anything after a `cd`, a word only known at run time) or its own
 * words reach outside (`make -C /`). A command no prefix covers safely
 * (`node test.js`: any script) is left out; it is asked about next time.
 */
function offeredPrefixes(parsed: ReturnType<typeof parseShell>, failures: CommandJudgement[], judge: Judge): { cmd: SimpleCommand; prefix: string }[] {
  const uncovered = failures.filter((f) => f.cmd.argv.length > 0 && !isCd(f.cmd) && !isGranted(f.cmd, judge));
  const candidates: { cmd: SimpleCommand; prefix: string; pattern: CommandPattern }[] = [];
  for (const f of uncovered) {
    const prefix = prefixOf(f.cmd);
    const pattern = prefix ? parsePattern(prefix, true) : null;
    if (pattern) candidates.push({ cmd: f.cmd, prefix, pattern });
  }
  // Judged together, as they would be next time; one that fails is dropped and the rest judged again without it.
  for (let kept = candidates; kept.length > 0; ) {
    const withPrefixes = judgeLine(parsed, { ...judge, sessionPatterns: [...judge.sessionPatterns, ...kept.map((c) => c.pattern)] });
    const covering = kept.filter((c) => {
      if (withPrefixes.judgements.some((j) => j.cmd === c.cmd && !j.grantedBy)) return false;
      const ownWords = { ...c.cmd, argv: c.cmd.argv.slice(0, c.pattern.words.length) };
      return argumentsInside(ownWords, 1, withPrefixes.paths, false) === null;
    });
    if (covering.length === kept.length) return kept;
    kept = covering;
  }
  return [];
}

const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/** The rules "always allow" saves for the offered prefixes (RunEvaluation.saves). */
function savedRules(offered: { cmd: SimpleCommand; prefix: string }[]): string[] {
  const out: string[] = [];
  for (const { cmd, prefix } of offered) {
    // A program that changes or removes what it is given (programs.ts) is saved as the command the person saw.
    if (!changesWhatItIsGiven(prefix.split(" "))) {
      out.push(`run:${prefix} *`);
      continue;
    }
    if (cmd.argv.every((w) => isLiteral(w) && PLAIN_WORD.test(w.text))) out.push(`run:${cmd.argv.map((w) => w.text).join(" ")}`);
  }
  return [...new Set(out)];
}

/** `--allow-run=git,curl`, naming the programs that were not granted. */
function grantHint(failures: CommandJudgement[], grants: Grants): string {
  // What git is handed to run needs its own grant; something no name would cover needs --allow-run.
  if (failures.some((f) => f.needs?.length === 0)) return "--allow-run (git would run programs bunker cannot name beforehand)";
  const programs = [...new Set(failures.flatMap((f) => f.needs ?? [f.cmd.argv[0]?.text]).filter((p): p is string => !!p))];
  if (programs.length === 0) return "--allow-run (a redirection writes a file)";
  const listed = [...new Set([...grants.allow.run.programs, ...programs])];
  return `--allow-run=${listed.join(",")} (or --allow-run for every command)`;
}

/**
 * The prefix offered for a line on its own (no grants, no session): the first
 * command that needs a grant, as program plus subcommand. "" when the line
 * cannot be analysed.
 */
export function suggestPrefix(command: string): string {
  const parsed = parseShell(command);
  if (parsed.uncertain) return "";
  const withProgram = parsed.commands.filter((c) => c.argv.length > 0);
  const cmd = withProgram.find((c) => !READ_ONLY[c.argv[0]!.text] && !isCd(c)) ?? withProgram[0];
  return cmd ? prefixOf(cmd) : "";
}

/** What --deny-run names in this command (the program, one it runs, or a pattern), or null. */
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
  // What git is told to run (`git -c alias.x='!rm -rf .' x`) is run all the same.
  for (const run of gitRuns(cmd.argv)) {
    for (const inner of run.command ? parseShell(run.command).commands : []) {
      const by = deniedBy(inner, deny);
      if (by) return by;
    }
  }
  return null;
}

function text(cmd: SimpleCommand): string {
  return [...cmd.assignments.map((a) => `${a.name}=${a.value.raw}`), ...cmd.argv.map((w) => w.raw)].join(" ") || cmd.redirects.map((r) => `${r.op}${r.target?.raw ?? ""}`).join(" ");
}
