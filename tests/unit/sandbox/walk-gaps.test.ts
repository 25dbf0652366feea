// The walk fails closed where it cannot see (red team 5's F12): folders it
// cannot list, names that are not UTF-8, repositories in an object store. The
// real-run rows run the attack unconfined first (the control: the person's
// git runs the planted program), then in bubblewrap through run_bash.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { scanRoots, setWalkBound } from "../../../src/sandbox/git-guard.ts";
import { bytesQuote, gapsBefore, guardedBelow, joinBytes, undecodableNames, unwalkedNote, utf8Name } from "../../../src/sandbox/walk-gaps.ts";
import { tempDir } from "../../support/context.ts";
import { plantingBench } from "../../support/planting.ts";
import { asPerson, PERSON_UID, sandboxedAs } from "../../support/run-sandboxed-as.ts";

const usable = detectSandbox().kind === "bubblewrap";
const { hostEnv, MARK, touch, hostGit, workspace, sandboxed, next, home, env } = plantingBench("bunker-walkgaps-");
const FF = Buffer.from([0xff]);
/** The person's nested repository, tools/ (one commit). */
const nested = (r: string) => {
  hostGit(r, "init", "-q", "tools");
  writeFileSync(join(r, "tools/f"), "a\n");
  hostGit(join(r, "tools"), "add", "f");
  hostGit(join(r, "tools"), "commit", "-qm", "one");
};

describe("names that are not UTF-8", () => {
  test("found by their bytes, shown and quoted byte for byte, given a UTF-8 name", () => {
    const dir = tempDir("bunker-gaps-");
    mkdirSync(joinBytes(dir, Buffer.concat([Buffer.from("t"), FF])));
    mkdirSync(join(dir, "plain\ufffd"));
    const names = readdirSync(dir);
    expect(undecodableNames(dir, names)).toEqual([Buffer.from([0x74, 0xff])]);
    expect(bytesQuote(Buffer.from([0x74, 0xff]))).toBe("$'t\\377'");
    expect(bytesQuote(Buffer.from("it's\x1b"))).toBe("$'it\\'s\\033'");
    expect(bytesQuote(Buffer.from("plain/name"))).toBe("plain/name");
    expect(utf8Name(Buffer.concat([Buffer.from("é"), FF, Buffer.from("x")]))).toBe("é%FFx");
  });

  test("below one, every .git, bare-shaped folder and runs-later file is found; an unguarded tree gives nothing", () => {
    const dir = tempDir("bunker-gaps-below-");
    const top = joinBytes(dir, Buffer.concat([Buffer.from("x"), FF]));
    mkdirSync(joinBytes(top, "a/sub/.git"), { recursive: true });
    mkdirSync(joinBytes(top, "b/objects"), { recursive: true });
    mkdirSync(joinBytes(top, "b/refs"));
    writeFileSync(joinBytes(top, "b/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(joinBytes(top, "c.envrc"), "");
    writeFileSync(joinBytes(top, ".envrc"), "");
    const found = [...guardedBelow(top, (p) => p.endsWith("/.envrc")).values()].map((h) => h.path.subarray(top.length + 1).toString()).sort();
    expect(found).toEqual([".envrc", "a/sub/.git", "b"]);
    const plain = joinBytes(dir, Buffer.concat([Buffer.from("y"), FF]));
    mkdirSync(joinBytes(plain, "docs"), { recursive: true });
    expect(guardedBelow(plain, () => false).size).toBe(0);
    // Before a command, the first refuses it saying which path and how to rename it; the second does not.
    const refusal = gapsBefore([dir], { unlistable: [], unwalked: [], undecodable: [{ dir, name: top.subarray(dir.length + 1), id: "x" }] }, (p) => p.endsWith("/.envrc")).refusal;
    expect(refusal).toContain("bunker cannot keep $'x\\377/");
    expect(refusal).toContain("Rename the folder to a UTF-8 name (mv $'x\\377' NEW-NAME)");
    expect(gapsBefore([dir], { unlistable: [], unwalked: [], undecodable: [{ dir, name: plain.subarray(dir.length + 1), id: "y" }] }, () => false).refusal).toBeNull();
  });
});

test("refusals and notes name paths quoted for the shell, every byte that does not show itself escaped", () => {
  const odd = "/w/a b\n\x1b[31m";
  const refusal = gapsBefore([odd], { unlistable: [{ path: odd, id: "1", owned: true, code: "EACCES" }], unwalked: [], undecodable: [] }, () => false).refusal;
  expect(refusal).toStartWith("bunker cannot list $'/w/a b\\012\\033[31m', so it cannot find");
  expect(refusal).not.toContain("\n");
  const many = Array.from({ length: 5_001 }, (_, i) => `${odd}/d${i}`);
  expect(gapsBefore([odd], { unlistable: [], unwalked: many, undecodable: [] }, () => false).refusal).toStartWith("bunker stopped looking for git repositories in $'/w/a b\\012\\033[31m' at its bound");
  expect(unwalkedNote({ unwalked: [`${odd}/d`] })).toContain("(\$'/w/a b\\012\\033[31m/d') was read-only");
});

test("a walk that stops at its bound: the folders it did not come to are read-only to the command, or too many refuse it", () => {
  const root = tempDir("bunker-gaps-bound-");
  for (let i = 0; i < 6; i++) mkdirSync(join(root, `d${i}/sub/.git`), { recursive: true });
  const scan = scanRoots([root], undefined, 3);
  expect(scan.unwalked.length).toBeGreaterThan(0);
  const before = gapsBefore([root], scan, () => false);
  expect(before.refusal).toBeNull();
  // Every repository the walk did not reach is under a read-only folder.
  const reached = scan.sites.map((s) => s.path);
  for (let i = 0; i < 6; i++) {
    const git = join(root, `d${i}/sub/.git`);
    if (!reached.includes(git)) expect(before.readOnly.some((p) => git.startsWith(`${p}/`))).toBe(true);
  }
  expect(unwalkedNote(scan)).toContain(`so the ${scan.unwalked.length} folders it did not come to (`);
  const wide = tempDir("bunker-gaps-wide-");
  for (let i = 0; i < 5_010; i++) mkdirSync(join(wide, `d${i}`));
  expect(gapsBefore([wide], scanRoots([wide], undefined, 2), () => false).refusal).toContain("folders it did not come to: too many to keep read-only one by one");
});

describe.skipIf(!usable)("past the walk's bound after a command (a bound of 60 folders here; real bubblewrap)", () => {
  beforeEach(() => setWalkBound(60));
  afterEach(() => setWalkBound());
  const arm = (dir: string) => `git init -q ${dir} && printf '[core]\\n\\tfsmonitor = "${touch}; false"\\n' >> ${dir}/.git/config`;
  // Red team 6's F12g2: the walk reaches the command's many folders first and stops before its armed repository.
  const plant = `mkdir many && for i in $(seq 100); do mkdir many/d$i; done && mkdir many/zz && ${arm("many/zz/sub")}`;

  test("red team 6 F12g2: what the walk did not reach is the command's, and is set aside whole; later commands run", async () => {
    const control = workspace(nested);
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    hostGit(join(control, "many/zz/sub"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(nested);
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker set aside many, which the command made and which its check did not reach (it stops at 200,000 folders): it is now many.bunker-set-aside; to restore it after checking it: mv many.bunker-set-aside many");
    expect(existsSync(join(root, "many"))).toBe(false);
    // The person's own nested repository was walked first: not set aside, not disarmed.
    expect(out).not.toContain("tools");
    expect(Bun.spawnSync(["bash", "-c", "cd many/zz/sub && git status"], { cwd: root, env: hostEnv }).exitCode).not.toBe(0);
    expect(existsSync(MARK)).toBe(false);
    expect(await sandboxed(root, "echo still")).toBe("exit code 0\n\nstill");
  });
});

describe.skipIf(!usable)("what a command hides from the walk is undone before the person's git (real bubblewrap)", () => {
  const armedRepo = (dir: string) => `git init -q ${dir} && printf '[core]\\n\\tfsmonitor = "${touch}; false"\\n' >> ${dir}/.git/config`;

  test("red team 5 F12d: a new repository under a folder whose name is not UTF-8 is set aside, then disarmed", async () => {
    const plant = `d=$(printf 'x\\377') && mkdir "$d" && ${armedRepo('"$d"/sub')}`;
    const control = workspace();
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    // (The decoded name does not open: the person's shell reaches it by its bytes.)
    Bun.spawnSync(["bash", "-c", "cd x*/sub && git status"], { cwd: control, env: hostEnv });
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace();
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker set aside $'x\\377', which the command made or renamed and whose name is not UTF-8");
    expect(out).toContain("it is now x%FF.bunker-set-aside; to restore it after checking it: mv x%FF.bunker-set-aside $'x\\377'");
    expect(out).toContain("bunker disarmed the git repository the command created at x%FF.bunker-set-aside/sub/.git (core.fsmonitor commented out in config)");
    hostGit(join(root, "x%FF.bunker-set-aside/sub"), "status");
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 5 F12e: the person's nested repository renamed to a name that is not UTF-8 stays read-only; their repo is not 'disarmed'", async () => {
    const hide = `d=$(printf 't\\377') && mv tools "$d" && ln -s "$d" tools`;
    const write = `printf '[core]\\n\\tfsmonitor = "${touch}; false"\\n' >> tools/.git/config`;
    const control = workspace(nested);
    for (const c of [hide, write]) expect(Bun.spawnSync(["bash", "-c", c], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    hostGit(join(control, "tools"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(nested);
    const config = readFileSync(join(root, "tools/.git/config"), "utf8");
    const first = await sandboxed(root, hide);
    expect(first).toContain("bunker set aside $'t\\377', which the command made or renamed and whose name is not UTF-8");
    // The person's repository, moved with its folder, is theirs: not disarmed, nothing renamed in it.
    expect(first).not.toContain("disarmed");
    const second = await sandboxed(root, write);
    expect(second.split("\n")[0]).not.toBe("exit code 0");
    expect(readFileSync(join(root, "t%FF.bunker-set-aside/.git/config"), "utf8")).toBe(config);
    hostGit(join(root, "t%FF.bunker-set-aside"), "status");
    expect(existsSync(MARK)).toBe(false);
  });

  test("a folder of the person's whose name is not UTF-8: one holding a repository refuses commands; a repository planted in another is set aside", async () => {
    const bytes = (r: string, name: string) => joinBytes(r, Buffer.concat([Buffer.from(name), FF]));
    const root = workspace((r) => {
      mkdirSync(bytes(r, "old"));
      writeFileSync(joinBytes(bytes(r, "old"), "notes.txt"), "x\n");
    });
    const out = await sandboxed(root, `cd old* && ${armedRepo("sub")}`);
    expect(out).toContain("bunker set aside $'old\\377/sub/.git', which the command made in a folder whose name is not UTF-8");
    Bun.spawnSync(["bash", "-c", "cd old*/sub && git status"], { cwd: root, env: hostEnv });
    expect(existsSync(MARK)).toBe(false);

    const theirs = workspace((r) => {
      mkdirSync(joinBytes(bytes(r, "repo"), "in/.git"), { recursive: true });
    });
    const refused = await sandboxed(theirs, "echo hi > x");
    expect(refused).toContain("refused: not run: bunker cannot keep $'repo\\377/in/.git' read-only for commands: its path is not UTF-8");
    expect(existsSync(join(theirs, "x"))).toBe(false);
  });

  test("a repository planted deeper than a path can name (ENAMETOOLONG) is said, and later commands are refused until it is gone", async () => {
    const deep = `n=$(printf 'd%.0s' {1..100}); for i in $(seq 45); do mkdir "$n" && cd "$n"; done; ${armedRepo("sub")}`;
    const root = workspace();
    try {
      const out = await sandboxed(root, deep);
      expect(out).toContain("(ENAMETOOLONG), so it cannot check what the command put there; later commands are refused until it is moved or removed.");
      const next = await sandboxed(root, "echo hi > x");
      expect(next).toContain("refused: not run: bunker cannot look into ");
      expect(existsSync(join(root, "x"))).toBe(false);
    } finally {
      Bun.spawnSync(["rm", "-rf", root]);
    }
  });

  test("red team 5 F12f: a repository planted in the object store of a bare-shaped folder is disarmed", async () => {
    const plant = `mkdir -p b/objects b/refs && echo 'ref: refs/heads/main' > b/HEAD && ${armedRepo("b/objects/sub")}`;
    const control = workspace();
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    hostGit(join(control, "b/objects/sub"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace();
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker disarmed the git repository the command created at b/objects/sub/.git (core.fsmonitor commented out in config)");
    hostGit(join(root, "b/objects/sub"), "status");
    expect(existsSync(MARK)).toBe(false);
  });
});

describe.skipIf(!usable)("a folder made unlistable (as an unprivileged user: root lists any folder; real bubblewrap)", () => {
  /** A workspace of the person's (that user's), and a marker folder that user may write. */
  function userWorkspace(setup: (root: string) => void = () => {}): { root: string; mark: string } {
    const root = workspace(setup);
    const markDir = next("mark");
    mkdirSync(markDir);
    Bun.spawnSync(["chown", "-R", `${PERSON_UID}:${PERSON_UID}`, root, markDir, home]);
    return { root, mark: join(markDir, "PWNED") };
  }
  const personGit = (cwd: string, ...args: string[]) => Bun.spawnSync(asPerson(["git", ...args]), { cwd, env: hostEnv, stdout: "pipe", stderr: "pipe", timeout: 10_000 });
  const asUser = (cwd: string, command: string) => Bun.spawnSync(asPerson(["bash", "-c", command]), { cwd, env: hostEnv });
  const armed = (mark: string) => `printf '[core]\\n\\tfsmonitor = "touch ${mark}; false"\\n'`;

  // The mode a command leaves on a folder over the repository it planted; how the person's git gets there anyway.
  const HIDING = [
    { name: "red team 5 F12: a folder made unlistable (chmod 0311) over a new repository is made listable again, and the repository disarmed", mode: "0311", reach: "cd d/sub && git status" },
    // The person's git cannot go in until they make it enterable again; then it runs what was planted.
    { name: "a folder made listable but not enterable (chmod 0644) over a new repository is made enterable again, and the repository disarmed", mode: "0644", reach: "chmod u+x d && cd d/sub && git status" },
  ];
  for (const row of HIDING) {
    test(row.name, () => {
      const plantFor = (mark: string) => `mkdir d && git init -q d/sub && ${armed(mark)} >> d/sub/.git/config && chmod ${row.mode} d`;
      const c = userWorkspace();
      expect(asUser(c.root, plantFor(c.mark)).exitCode).toBe(0);
      asUser(c.root, row.reach);
      expect(existsSync(c.mark)).toBe(true);

      const w = userWorkspace();
      const [out] = sandboxedAs(w.root, home, env, [plantFor(w.mark)]);
      expect(out).toContain("bunker made d listable again (chmod u+rx): the command made it unlistable");
      expect(out).toContain("bunker disarmed the git repository the command created at d/sub/.git (core.fsmonitor commented out in config)");
      personGit(join(w.root, "d/sub"), "status");
      expect(existsSync(w.mark)).toBe(false);
    });
  }

  test("red team 6 F12k: a new repository under 70 nested folders each set to 0311 is reached in one pass, with one note, and disarmed", () => {
    const deep = Array.from({ length: 70 }, () => "a").join("/");
    const plantFor = (mark: string) => `mkdir -p ${deep} && git init -q ${deep}/sub && ${armed(mark)} >> ${deep}/sub/.git/config && q=${deep}; while [ -n "$q" ]; do chmod 0311 "$q"; case $q in */*) q=\${q%/a};; *) q=;; esac; done`;
    const c = userWorkspace();
    expect(asUser(c.root, plantFor(c.mark)).exitCode).toBe(0);
    asUser(c.root, `cd ${deep}/sub && git status`);
    expect(existsSync(c.mark)).toBe(true);

    const w = userWorkspace();
    const [out = ""] = sandboxedAs(w.root, home, env, [plantFor(w.mark)]);
    expect(out).toContain("bunker made a, and 69 folders inside it, listable again (chmod u+rx): the command made them unlistable");
    expect(out.match(/listable again/g)?.length).toBe(1);
    expect(out).toContain(`bunker disarmed the git repository the command created at ${deep}/sub/.git (core.fsmonitor commented out in config)`);
    expect(out).not.toContain("rounds");
    personGit(join(w.root, deep, "sub"), "status");
    expect(existsSync(w.mark)).toBe(false);
  });

  test("red team 5 F12c: the workspace folder made unlistable does not hide the person's nested repository from the next command", () => {
    const c = userWorkspace(nested);
    for (const cmd of ["chmod 0311 .", `${armed(c.mark)} >> tools/.git/config`]) expect(asUser(c.root, cmd).exitCode).toBe(0);
    personGit(join(c.root, "tools"), "status");
    expect(existsSync(c.mark)).toBe(true);

    const w = userWorkspace(nested);
    const config = readFileSync(join(w.root, "tools/.git/config"), "utf8");
    const [first, second] = sandboxedAs(w.root, home, env, ["chmod 0311 .", `${armed(w.mark)} >> tools/.git/config`]);
    expect(first).toContain("bunker made . listable again (chmod u+rx)");
    expect(first).not.toContain("disarmed");
    expect(second).toContain("Read-only file system");
    expect(readFileSync(join(w.root, "tools/.git/config"), "utf8")).toBe(config);
    personGit(join(w.root, "tools"), "status");
    expect(existsSync(w.mark)).toBe(false);
  });

  test("a folder that was unlistable before the command is read-only to it: nothing is planted there", () => {
    const w = userWorkspace((r) => mkdirSync(join(r, "locked/sub"), { recursive: true }));
    Bun.spawnSync(["chmod", "0311", join(w.root, "locked")]);
    const [out] = sandboxedAs(w.root, home, env, [`git init -q locked/sub/new; ${armed(w.mark)} >> locked/sub/new/.git/config; echo done`]);
    expect(out).toContain("Read-only file system");
    expect(out).not.toContain("listable again");
    expect(existsSync(join(w.root, "locked/sub/new"))).toBe(false);
    // The person's own mode is kept.
    expect(Bun.spawnSync(["stat", "-c", "%a", join(w.root, "locked")]).stdout.toString().trim()).toBe("311");
  });
});
