// The program tables carry their own examples (as Codex's execpolicy rules
// carry match/not_match): every example is run through the real evaluation
// here, so a table entry that stops doing what its reason says fails.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../../src/perms/policy.ts";
import { evaluateRun, suggestPrefix } from "../../../../src/perms/run/evaluate.ts";
import { isRiskyOption } from "../../../../src/perms/run/judge.ts";
import {
  GIT_PROGRAM_OPTIONS, GIT_PROGRAM_SETTINGS, GIT_PROGRAM_SUBCOMMANDS, NO_PREFIX_SUBCOMMAND_ENTRIES, PACKAGE_INSTALLER_ENTRIES, READ_ONLY, READ_ONLY_PROGRAMS, SCRIPT_PROGRAMS, RISKY_OPTION_ENTRIES, RUNS_ARGUMENT_PROGRAMS, SCRIPT_RUNNERS,
  PREFIX_ENV_ENTRIES, SESSION_OPTION_LIMITS, SUBCOMMAND_PROGRAM_ENTRIES, CHANGES_GIVEN_ENTRIES, type ProgramEntry,
} from "../../../../src/perms/run/programs.ts";
import { tempDir } from "../../../support/context.ts";

const root = tempDir("bunker-programs-");
mkdirSync(join(root, "src"));
mkdirSync(join(root, "d"));
mkdirSync(join(root, ".git"));
writeFileSync(join(root, ".git", "config"), "[core]\n\tbare = false\n");
for (const f of ["src/a.ts", "src/b.ts", "a.txt", "b.txt", "list.txt"]) writeFileSync(join(root, f), "a 1\nb 2\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const verdict = (line: string, grants = emptyGrants(), sessionPrefixes: string[] = []) => evaluateRun(line, { root, grants, sessionPrefixes }).verdict;

/** Each entry: a reason, at least one example either way. */
function wellFormed(table: ProgramEntry[]): void {
  for (const e of table) {
    expect({ names: e.names, why: e.why.length > 10, match: e.match.length > 0, notMatch: e.notMatch.length > 0 }).toEqual({ names: e.names, why: true, match: true, notMatch: true });
  }
}

/** `rule(line)` must hold for every match example and fail for every not-match one. */
function examples(name: string, table: ProgramEntry[], rule: (line: string) => boolean): void {
  describe(name, () => {
    test("every entry has a reason and examples either way", () => wellFormed(table));
    for (const e of table) {
      test(`${e.names.slice(0, 4).join(", ")}${e.names.length > 4 ? ", …" : ""}: ${e.why}`, () => {
        for (const line of e.match) expect({ line, holds: rule(line) }).toEqual({ line, holds: true });
        for (const line of e.notMatch) expect({ line, holds: rule(line) }).toEqual({ line, holds: false });
      });
    }
  });
}

examples("read-only programs: match runs unasked, not-match asks", READ_ONLY_PROGRAMS, (line) => verdict(line) === "allow");
test("every read-only program has an example of its own (its options differ)", () => {
  for (const e of READ_ONLY_PROGRAMS) {
    for (const name of e.names) expect({ name, example: e.match.some((l) => l.split(" ")[0] === name || l.startsWith(`TZ=UTC ${name}`)) }).toEqual({ name, example: true });
  }
});

examples("options a session prefix does not cover: match still asks under the line's own prefix", SESSION_OPTION_LIMITS, (line) => {
  // The leading words before the first option: what the person allowed (`cp`, `npm install`, `make build`).
  const words = line.split(" ");
  const prefix = words.slice(0, Math.min(2, words.findIndex((w) => w.startsWith("-")))).join(" ");
  return verdict(line, emptyGrants(), [prefix]) === "ask";
});

examples("programs that run their arguments: match is denied under --deny-run=rm", RUNS_ARGUMENT_PROGRAMS, (line) => {
  const g = emptyGrants();
  g.deny.run.programs = ["rm"];
  return verdict(line, g) === "deny";
});

examples("script runners and network clients: match gets no session prefix", SCRIPT_RUNNERS, (line) => suggestPrefix(line) === "");
examples("subcommands that run programs: match gets no session prefix", NO_PREFIX_SUBCOMMAND_ENTRIES, (line) => suggestPrefix(line) === "");
examples("installers: match is not covered by the installer's prefix", PACKAGE_INSTALLER_ENTRIES, (line) => {
  const prefix = line.split(" ").slice(0, 2).join(" ");
  return verdict(line, emptyGrants(), [prefix]) === "ask";
});
// N11-10: the variables in front are set aside for the rule, and still shown (the command as written).
examples("variables a prefix may follow: match is covered by `npm test`, not-match asks", PREFIX_ENV_ENTRIES, (line) => verdict(line, emptyGrants(), ["npm test"]) === "allow");
// N11-16: `.` after a linter's prefix is the project; after one of these it is the workspace to move or remove.
// R11-14, R12-06: and "always allow" saves one of these as the command itself, never with any arguments. One list
// holds both ways: each example is checked for both.
examples("programs that change or remove what they are given: match asks under the line's own prefix for naming `.` and is saved exactly; not-match runs and is saved as its prefix", CHANGES_GIVEN_ENTRIES, (line) => {
  const asks = verdict(line, emptyGrants(), [suggestPrefix(line)]) === "ask";
  // Saved: the same line naming a folder inside (`d`) in place of `.`, for which a prefix is offered.
  const inside = line.split(" ").map((w) => (w === "." ? "d" : w)).join(" ");
  const { saves } = evaluateRun(inside, { root, grants: emptyGrants() });
  const exact = saves.length > 0 && saves.every((r) => r === `run:${inside}`);
  expect({ line, saves, both: asks === exact || (!asks && saves.length === 0) }).toEqual({ line, saves, both: true });
  return asks && exact;
});
test("a line with variables in front or a redirection into the workspace offers its program's prefix, and says what is saved (N11-10, N11-16)", () => {
  const offered = (line: string) => {
    const e = evaluateRun(line, { root, grants: emptyGrants() });
    return { prefixes: e.prefixes, saves: e.saves, commands: e.commands.map((c) => c.command), reasons: e.reasons };
  };
  expect(offered("NODE_ENV=test npm test")).toEqual({ prefixes: ["npm test"], saves: ["run:npm test *"], commands: ["NODE_ENV=test npm test"], reasons: ["`npm` is not granted"] });
  expect(offered("npm test > out.txt 2>&1").prefixes).toEqual(["npm test"]);
  expect(offered("npx eslint .")).toEqual({ prefixes: ["npx eslint"], saves: ["run:npx eslint *"], commands: ["npx eslint ."], reasons: ["`npx` is not granted"] });
  // What a variable that names code or a program would change is asked about each time, and no prefix is offered for it.
  expect(offered("NODE_OPTIONS=--require=./x.js npm test").prefixes).toEqual([]);
  // The redirection is judged as the write it is: into .git or outside, the prefix would not cover the line.
  expect(offered("npm test > .git/hooks/pre-commit").prefixes).toEqual([]);
  expect(offered("npm test > /tmp/out.txt").prefixes).toEqual([]);
  // Once allowed, the same lines run unasked.
  for (const line of ["NODE_ENV=test npm test", "CI=1 npm test > out.txt 2>&1", "npx eslint ."]) expect({ line, v: verdict(line, emptyGrants(), ["npm test", "npx eslint"]) }).toEqual({ line, v: "allow" });
});
examples("programs with subcommands: match's prefix keeps the subcommand", SUBCOMMAND_PROGRAM_ENTRIES, (line) => suggestPrefix(line).split(" ").length >= 2);
const gitGranted = (line: string, also: string[] = []) => {
  const g = emptyGrants();
  g.allow.run.programs = ["git", ...also];
  return verdict(line, g);
};
const gitTables = [...GIT_PROGRAM_OPTIONS, ...GIT_PROGRAM_SUBCOMMANDS, ...GIT_PROGRAM_SETTINGS];
examples("git handed a program to run: match asks under --allow-run=git", gitTables, (line) => gitGranted(line) === "ask");
test("what git is handed is judged as that program: granted too, it runs; under --deny-run it is denied", () => {
  for (const line of ["git -c alias.x='!touch p' x", "git difftool -x 'touch p' HEAD", "git -c core.pager='touch p' log", "git rebase --exec='touch p' main"]) {
    expect({ line, verdict: gitGranted(line, ["touch"]) }).toEqual({ line, verdict: "allow" });
    const g = emptyGrants();
    g.allow.run.all = true;
    g.deny.run.programs = ["touch"];
    expect({ line, verdict: verdict(line, g) }).toEqual({ line, verdict: "deny" });
  }
  // What cannot be judged beforehand asks even when every program is granted by name.
  expect(gitGranted("git -c include.path=x.cfg log", ["touch"])).toBe("ask");
  expect(evaluateRun("git -c core.pager=less log", { root, grants: (() => { const g = emptyGrants(); g.allow.run.programs = ["git"]; return g; })() }).reason)
    .toBe("`git -c core.pager=less` makes git run `less`: `less` is not granted");
});

examples("risky option names: match is risky", RISKY_OPTION_ENTRIES, (option) => isRiskyOption(option));

test("the evaluation reads these tables and nothing else: one entry adds a program", () => {
  expect(Object.keys(READ_ONLY).sort()).toEqual(READ_ONLY_PROGRAMS.flatMap((e) => e.names).sort());
  expect([...SCRIPT_PROGRAMS].sort()).toEqual([...new Set(SCRIPT_RUNNERS.flatMap((e) => e.names))].sort());
});
