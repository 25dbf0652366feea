// Whether git holds a file a deny-read rule covers (red team 11's F04): asked of the real git, on repositories
// holding it in each way git can (a commit, the index, a stash's untracked files, a reset-away commit), and not.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyPathRules, type PathRules } from "../../../src/perms/policy.ts";
import { HistoryCheck, hiddenHistory, hiddenHistoryNote, pathspecs } from "../../../src/sandbox/denied-history.ts";
import { newRepository } from "../../support/embedded-repo.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A repository with one commit of a.txt, and config/secrets.env in the working tree (untracked, as in a .gitignore). */
function repo(): { root: string; run: (...args: string[]) => string } {
  const { base, root, g } = newRepository("bunker-denied-history-", { "a.txt": "a\n" });
  made.push(base);
  mkdirSync(join(root, "config"));
  writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=hunter2\n");
  return { root, run: g };
}

const rules = (over: Partial<PathRules>): PathRules => ({ ...emptyPathRules(), ...over });

describe("git's pathspecs for the deny-read rules", () => {
  test("a path, a glob, one holding the repository, one elsewhere; a glob with braces is matched by bunker instead", async () => {
    expect(pathspecs(rules({ paths: ["/r/config/secrets.env", "/elsewhere/x"], globs: ["/r/**/*.pem", "/r/config/**"] }), "/r")).toEqual([":(top,literal)config/secrets.env", ":(top,glob)**/*.pem", ":(top,literal)config"]);
    expect(pathspecs(rules({ paths: ["/"] }), "/r")).toEqual([":/"]);
    expect(pathspecs(rules({ globs: ["/r/{a,b}/**"] }), "/r")).toBeNull();
    expect(pathspecs(rules({ globs: ["/elsewhere/**"] }), "/r")).toEqual([]);
  });
});

describe("whether the repository's objects are hidden", () => {
  const home = "/nonexistent-home";
  const deny = (root: string) => rules({ globs: [`${root}/config/**`] });

  test("never in git, or no repository: nothing hidden, nothing said", async () => {
    const { root } = repo();
    expect(await hiddenHistory(root, deny(root), home)).toEqual({ objects: [], lines: [] });
    // An empty .git folder (a stand-in left behind) is no repository git reads.
    mkdirSync(join(root, "sub/.git"), { recursive: true });
    expect(await hiddenHistory(join(root, "sub"), rules({ globs: [`${root}/sub/**`] }), home)).toEqual({ objects: [], lines: [] });
  });

  test("committed once, then untracked: hidden, and the person is told which file and why", async () => {
    const { root, run } = repo();
    run("add", "config/secrets.env");
    run("commit", "-qm", "secrets");
    run("rm", "-q", "--cached", "config/secrets.env");
    run("commit", "-qm", "untrack");
    const h = await hiddenHistory(root, deny(root), home);
    expect(h.objects).toEqual([join(root, ".git/objects")]);
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toStartWith("config/secrets.env is in git history (a commit, a stash or a reflog entry) of this repository, and a deny-read rule covers it");
    // A wildcard-free rule and a glob with braces (matched by bunker over every name history holds) find it too.
    expect((await hiddenHistory(root, rules({ paths: [join(root, "config/secrets.env")] }), home)).objects).toHaveLength(1);
    expect((await hiddenHistory(root, rules({ globs: [`${root}/{config,other}/*.env`] }), home)).objects).toHaveLength(1);
  });

  test("only staged: the index", async () => {
    const { root, run } = repo();
    run("add", "config/secrets.env");
    expect((await hiddenHistory(root, deny(root), home)).lines[0]).toStartWith("config/secrets.env is in the git index of this repository");
  });

  test("only in a stash's untracked files, or only in a reset-away commit (the reflog)", async () => {
    const stashed = repo();
    stashed.run("stash", "-q", "-u");
    expect((await hiddenHistory(stashed.root, deny(stashed.root), home)).objects).toHaveLength(1);
    const reset = repo();
    reset.run("add", "config/secrets.env");
    reset.run("commit", "-qm", "oops");
    reset.run("reset", "-q", "HEAD~1");
    expect((await hiddenHistory(reset.root, deny(reset.root), home)).objects).toHaveLength(1);
  });

  test("its bytes in the object store with nothing holding them (a stash dropped, a git add undone): hidden; other bytes there are not", async () => {
    const dropped = repo();
    dropped.run("stash", "-q", "-u");
    dropped.run("stash", "drop", "-q");
    // The file back as it was (stash -u took it from the working tree).
    mkdirSync(join(dropped.root, "config"), { recursive: true });
    writeFileSync(join(dropped.root, "config/secrets.env"), "DB_PASSWORD=hunter2\n");
    const h = await hiddenHistory(dropped.root, deny(dropped.root), home);
    expect(h.objects).toHaveLength(1);
    // The dropped stash is a commit in the store that nothing holds: walked all the same (security N2's leftovers).
    expect(h.lines[0]).toStartWith("a version of config/secrets.env that git held (in history, the index or a stash) is still in the git object store of this repository");
    // Edited since: the old bytes are still in the dropped stash's commit (git show of what fsck lists prints them).
    writeFileSync(join(dropped.root, "config/secrets.env"), "DB_PASSWORD=rotated\n");
    expect((await hiddenHistory(dropped.root, deny(dropped.root), home)).objects).toHaveLength(1);
    // Dropped as the line says: nothing holds the file any more.
    dropped.run("reflog", "expire", "--expire-unreachable=now", "--all");
    dropped.run("gc", "-q", "--prune=now");
    expect(await hiddenHistory(dropped.root, deny(dropped.root), home)).toEqual({ objects: [], lines: [] });
  });

  test("a workspace inside the repository: the enclosing repository's objects", async () => {
    const { root, run } = repo();
    mkdirSync(join(root, "pkg/config"), { recursive: true });
    writeFileSync(join(root, "pkg/config/secrets.env"), "x\n");
    run("add", "pkg");
    run("commit", "-qm", "pkg");
    const h = await hiddenHistory(join(root, "pkg"), rules({ globs: [`${root}/pkg/config/**`] }), home);
    expect(h.objects).toEqual([join(root, ".git/objects")]);
    expect(h.lines[0]).toContain("of the repository at ..,");
  });

  test("a failed git command while objects are hidden says why; others say nothing", async () => {
    expect(hiddenHistoryNote("git show HEAD~1:config/secrets.env", 128, ["/r/.git/objects"])).toContain("ask the person to run the git command themselves");
    expect(hiddenHistoryNote("git status", 0, ["/r/.git/objects"])).toBeNull();
    expect(hiddenHistoryNote("make", 2, ["/r/.git/objects"])).toBeNull();
    expect(hiddenHistoryNote("git log", 128, [])).toBeNull();
  });
});

describe("the answer kept between looks (reviewer's R11-10)", () => {
  const home = "/nonexistent-home";

  test("a later look may only add hiding while a denied blob is in the store: refs re-pointed and reflogs dropped (reviewer's R12-10)", async () => {
    const { root, run } = repo();
    const stateDir = join(root, "..", "state");
    const deny = rules({ globs: [`${root}/config/**`] });
    run("add", "config/secrets.env");
    run("commit", "-qm", "secrets");
    run("rm", "-q", "--cached", "config/secrets.env");
    run("commit", "-qm", "untrack");
    // Edited since (the store check of its bytes as they are would not find the old ones).
    writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=rotated\n");
    const check = new HistoryCheck({ root, deny, home, stateDir });
    const told: string[] = [];
    expect((await check.forCommand((l) => told.push(l))).objects).toHaveLength(1);
    // What a command could do under --allow-write=.git: a new root commit, the old branch gone, no reflog; the old
    // commits and the secret's blob are unreachable but still in the store (git cat-file --batch-all-objects).
    run("checkout", "-q", "--orphan", "fresh");
    run("commit", "-qm", "fresh root");
    run("branch", "-q", "-D", "main");
    run("reflog", "expire", "--expire=now", "--all");
    const again = await check.forCommand((l) => told.push(l));
    expect(again.objects).toHaveLength(1);
    expect(told.at(-1)).toStartWith("a version of config/secrets.env that git held");
    // The next session too (the kept answer's blobs).
    const h = await hiddenHistory(root, deny, home, { stateDir });
    expect(h.objects).toHaveLength(1);
    // Once the person has dropped it from the store, the objects are shown again.
    run("gc", "-q", "--prune=now");
    expect(await hiddenHistory(root, deny, home, { stateDir })).toEqual({ objects: [], lines: [] });
  });

  test("a clean walk is kept: the next look walks only the commits added since, and finds the file in one of them", async () => {
    const { root, run } = repo();
    const stateDir = join(root, "..", "state");
    const deny = rules({ globs: [`${root}/config/**`] });
    expect(await hiddenHistory(root, deny, home, { stateDir })).toEqual({ objects: [], lines: [] });
    // Nothing moved: nothing walked (a walk could not finish in 1 ms).
    expect(await hiddenHistory(root, deny, home, { stateDir, limitMs: 1 })).toEqual({ objects: [], lines: [] });
    run("add", "config/secrets.env");
    run("commit", "-qm", "secrets");
    run("rm", "-q", "--cached", "config/secrets.env");
    run("commit", "-qm", "untrack");
    const h = await hiddenHistory(root, deny, home, { stateDir });
    expect(h.lines[0]).toStartWith("config/secrets.env is in git history");
    // Found and kept: the same refs need no walk either.
    expect((await hiddenHistory(root, deny, home, { stateDir, limitMs: 1 })).lines[0]).toStartWith("config/secrets.env is in git history");
  });

  test("in a session: a commit of the file between two commands hides the objects at the next", async () => {
    const { root, run } = repo();
    const check = new HistoryCheck({ root, deny: rules({ globs: [`${root}/config/**`] }), home });
    const told: string[] = [];
    expect(await check.forCommand((l) => told.push(l))).toEqual({ objects: [], walking: false });
    expect(told).toEqual([]);
    run("add", "config/secrets.env");
    run("commit", "-qm", "secrets");
    expect(await check.forCommand((l) => told.push(l))).toEqual({ objects: [join(root, ".git/objects")], walking: false });
    expect(told).toHaveLength(1);
    expect(told[0]).toStartWith("config/secrets.env is in the git index");
  });
});
