// A command plants something the person's own tools run later, outside the
// sandbox: a git directory reached through a `.git` link, a `gitdir:` git
// resolves elsewhere than bunker, a commondir, a bare repository, a husky
// hook, an .envrc. Each row runs the attack for real in bubblewrap (the judge
// allows everything: the sandbox and the after-scan alone hold), then runs
// the person's git on the host where the attack aims; its marker must not
// appear. Each row first runs the same attack unconfined, so the marker is
// known to fire when nothing stops it.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { plantingBench } from "../../support/planting.ts";

const usable = detectSandbox().kind === "bubblewrap";
const { hostEnv, MARK, touch, hostGit, workspace, sandboxed, next } = plantingBench("bunker-planted-");

interface Row {
  name: string;
  setup?: (root: string) => void;
  command: string;
  /** The person's next step on the host, in this folder of the workspace. */
  then: { dir: string; git: string[] };
  /** What the command's result must say was done. */
  says: string[];
  /** More of the person's git steps, each where the command armed another repository. */
  also?: { dir: string; git: string[] }[];
  /** Folders where the person's git status must now finish (it waited for ever on a FIFO). */
  finishes?: string[];
  /** The unconfined control, when the attack itself only arms what bunker's own handling of it would leave. */
  control?: string;
}

const husky = (root: string) => {
  // husky v9: core.hooksPath=.husky/_, whose hook runs .husky/pre-commit when there is one.
  mkdirSync(join(root, ".husky/_"), { recursive: true });
  writeFileSync(join(root, ".husky/_/pre-commit"), '#!/bin/sh\n[ -f .husky/pre-commit ] && sh .husky/pre-commit\nexit 0\n');
  chmodSync(join(root, ".husky/_/pre-commit"), 0o755);
  hostGit(root, "config", "core.hooksPath", ".husky/_");
};

/** An armed git directory only a .git shape leads to: inside a .git folder's objects/, where the walk does not look. */
const hidden = `mkdir -p q/.git/objects && git init -q --bare q/.git/objects/g && git --git-dir=q/.git/objects/g config core.bare false && git --git-dir=q/.git/objects/g config core.fsmonitor '${touch}'`;
const HEAD_ONLY = "mkdir -p r/.git && echo 'ref: refs/heads/master' > r/.git/HEAD";

// .git and commondir shapes, each tried with the installed git first (the control): where git follows the shape,
// bunker follows it too and disarms what it leads to; where git refuses it (a BOM), bunker sets it aside.
const SHAPES: Row[] = [
  {
    name: "shape: a .git file with CRLF line ending (git follows it)",
    command: `${hidden} && mkdir w && printf 'gitdir: ../q/.git/objects/g\r\n' > w/.git`,
    then: { dir: "w", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at w/.git (core.fsmonitor commented out in config of q/.git/objects/g)"],
  },
  {
    name: "shape: a .git file ending in a lone CR (git follows it)",
    command: `${hidden} && mkdir w && printf 'gitdir: ../q/.git/objects/g\r' > w/.git`,
    then: { dir: "w", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at w/.git (core.fsmonitor commented out in config of q/.git/objects/g)"],
  },
  {
    name: "shape: a .git link to a file that holds the gitdir (git follows both)",
    command: `${hidden} && mkdir w && printf 'gitdir: ../q/.git/objects/g\n' > gf && ln -s ../gf w/.git`,
    then: { dir: "w", git: ["status"] },
    says: ["bunker set aside the .git the command created at w/.git (a link git would follow): it is now w/.git.bunker-set-aside"],
  },
  {
    name: "shape: a .git link to the git directory (git follows it)",
    command: `${hidden} && mkdir w && ln -s ../q/.git/objects/g w/.git`,
    then: { dir: "w", git: ["status"] },
    says: ["bunker set aside the .git the command created at w/.git (a link git would follow): it is now w/.git.bunker-set-aside"],
  },
  {
    name: "shape: a commondir with CRLF line ending (git follows it)",
    command: `${hidden} && ${HEAD_ONLY} && printf '../../q/.git/objects/g\r\n' > r/.git/commondir`,
    then: { dir: "r", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at r/.git (core.fsmonitor commented out in config of q/.git/objects/g)"],
  },
];

// Shapes git refuses (or treats as no repository): bunker sets aside what it cannot read as git does, and the
// person's git there runs nothing (it stops, or goes on to the workspace's own repository).
const REFUSED_SHAPES: { name: string; command: string; dir: string; says: string | null }[] = [
  { name: "a .git file with a UTF-8 BOM before gitdir: (git: invalid gitfile format)", command: `${hidden} && mkdir w && printf '\\xef\\xbb\\xbfgitdir: ../q/.git/objects/g\n' > w/.git`, dir: "w", says: 'bunker set aside the .git the command created at w/.git (it is not "gitdir: " and a path, as git requires, so what git makes of it is not known)' },
  { name: "a commondir with a UTF-8 BOM (git: invalid path)", command: `${hidden} && ${HEAD_ONLY} && printf '\\xef\\xbb\\xbf../../q/.git/objects/g\n' > r/.git/commondir`, dir: "r", says: "its commondir \"\ufeff../../q/.git/objects/g\" (not a folder git and bunker find alike) renamed to commondir.bunker-set-aside" },
  { name: "a dangling .git link (git: not a repository)", command: `mkdir w && ln -s ../nowhere w/.git`, dir: "w", says: "bunker set aside the .git the command created at w/.git (a link git would follow)" },
  { name: "a FIFO named .git (git: not a repository; bunker: nothing to follow)", command: "mkdir w && mkfifo w/.git", dir: "w", says: null },
];

// An error checking or disarming one repository (a name too long to rename, a folder where a file is expected, a
// loop of links, a FIFO) once threw out of the whole after-command check: every repository the command made stayed
// armed. Each row makes one such repository beside an armed ordinary one: the broken one is set aside whole (or what
// bunker cannot read in it is), the ordinary one disarmed, and the person's git in each runs nothing.
const armed = (dir: string) => `git init -q ${dir} && git -C ${dir} config core.fsmonitor '${touch}'`;
const longName = "$(printf 'h%.0s' {1..250})";
const FAIL_SAFE: Row[] = [
  {
    name: "a hook whose name is too long to rename (ENAMETOOLONG), beside another new repository",
    command: `${armed("a")} && touch a/.git/hooks/${longName} && ${armed("c")}`,
    then: { dir: "a", git: ["status"] },
    also: [{ dir: "c", git: ["status"] }],
    says: ["bunker set aside the git repository the command created at a/.git, which bunker could not check or disarm (ENAMETOOLONG: name too long, rename ", "it is now a/.git.bunker-set-aside; to restore it after checking it: mv a/.git.bunker-set-aside a/.git", "bunker disarmed the git repository the command created at c/.git (core.fsmonitor commented out in config)"],
  },
  {
    name: "a hook's disarmed name already taken by a folder (EISDIR), beside another new repository",
    command: `git init -q a && mkdir -p a/.git/hooks/pre-commit.bunker-disarmed/x && printf '#!/bin/sh\n${touch}\n' > a/.git/hooks/pre-commit && chmod +x a/.git/hooks/pre-commit && ${armed("c")}`,
    then: { dir: "a", git: ["commit", "-qm", "x", "--allow-empty"] },
    also: [{ dir: "c", git: ["status"] }],
    says: ["bunker set aside the git repository the command created at a/.git, which bunker could not check or disarm (EISDIR: illegal operation on a directory, rename ", "bunker disarmed the git repository the command created at c/.git (core.fsmonitor commented out in config)"],
  },
  {
    name: "a .git file whose gitdir has a name too long to resolve, beside a new repository",
    command: `${armed("c")} && mkdir b && printf 'gitdir: ../%s\n' ${longName}${longName.replace("250", "60")} > b/.git`,
    then: { dir: "c", git: ["status"] },
    also: [{ dir: "b", git: ["status"] }],
    says: ['bunker set aside the .git the command created at b/.git (its gitdir "../hhh', "bunker disarmed the git repository the command created at c/.git (core.fsmonitor commented out in config)"],
  },
  {
    name: "a .git file whose gitdir goes through a loop of links (ELOOP), beside a new repository",
    command: `${armed("c")} && ln -s loop loop && mkdir b && printf 'gitdir: ../loop/x\n' > b/.git`,
    then: { dir: "c", git: ["status"] },
    says: ['bunker set aside the .git the command created at b/.git (its gitdir "../loop/x" is not a folder git and bunker find alike)', "bunker disarmed the git repository the command created at c/.git (core.fsmonitor commented out in config)"],
  },
  {
    name: "a config larger than bunker reads (1 MB of comment lines, then [core] fsmonitor)",
    command: `git init -q a && (yes '# a comment line, 1.2 MB of them' | head -n 34000; printf '\n[core]\n\tfsmonitor = "${touch}; false"\n') >> a/.git/config`,
    then: { dir: "a", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at a/.git (its config (larger than bunker reads) renamed to config.bunker-disarmed)"],
  },
  {
    name: "a FIFO named config, a folder named config, a FIFO named HEAD and one named index, beside a new repository",
    command: `git init -q f && rm f/.git/config && mkfifo f/.git/config && git init -q d && rm d/.git/config && mkdir d/.git/config && git init -q h && rm h/.git/HEAD && mkfifo h/.git/HEAD && git init -q i && mkfifo i/.git/index && ${armed("a")}`,
    then: { dir: "a", git: ["status"] },
    says: [
      "bunker disarmed the git repository the command created at f/.git (its config (not a regular file) renamed to config.bunker-disarmed)",
      "bunker disarmed the git repository the command created at d/.git (its config (not a regular file) renamed to config.bunker-disarmed)",
      "bunker disarmed the git repository the command created at h/.git (its HEAD (not a regular file: git would wait on it) renamed to HEAD.bunker-disarmed)",
      "bunker disarmed the git repository the command created at i/.git (its index (not a regular file: git would wait on it) renamed to index.bunker-disarmed)",
      "bunker disarmed the git repository the command created at a/.git (core.fsmonitor commented out in config)",
    ],
    // The person's git there no longer waits for ever on a FIFO.
    finishes: ["f", "h", "i"],
  },
  {
    name: "a hooks folder named by core.hooksPath, made by the command with a hook whose name is too long to rename",
    setup: (root) => hostGit(root, "config", "core.hooksPath", ".githooks"),
    command: `mkdir .githooks && touch .githooks/${longName} && printf '#!/bin/sh\n${touch}\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit`,
    then: { dir: ".", git: ["commit", "-qm", "x", "--allow-empty"] },
    says: ["bunker set aside the hooks folder .githooks the command created (a git config names it core.hooksPath), which bunker could not disarm (ENAMETOOLONG"],
  },
];

/** A folder git reaches only through a commondir (objects, refs and a config with fsmonitor; no HEAD, so no repository of its own), and a new repository sub. */
const commonArmed = `mkdir -p cd/objects cd/refs && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "${touch}; false"\\n' > cd/config && git init -q sub && echo a > sub/f && git -C sub add f`;

const ROWS: Row[] = [
  ...SHAPES,
  ...FAIL_SAFE,
  {
    // git reads a .git file as a C string: the path ends at a NUL (a NUL once made bunker's check throw).
    name: "red team 4: a .git file with a NUL after its gitdir",
    command: `git init -q n23 && git -C n23 config core.fsmonitor '${touch}' && mkdir s23 && printf 'gitdir: ../n23/.git\\0/nonexistent\\n' > s23/.git`,
    then: { dir: "s23", git: ["status"] },
    says: ["core.fsmonitor commented out in config"],
  },
  {
    // git reads the first line as a header only (its subsection holds an escaped quote and a "]"); bunker read a key whose
    // quoted value carried on, and kept the [core] line that follows.
    name: "red team 4: a section header with an escaped quote and ']' in its subsection, then [core] fsmonitor",
    command: `git init -q h24 && printf '[user "x\\\\"] name = a "] ;\\\\\\n[core] fsmonitor = "${touch}; false"\\n' >> h24/.git/config`,
    then: { dir: "h24", git: ["status"] },
    says: ["commented out in config"],
  },
  {
    // git keeps the spaces: only a trailing CR/LF is dropped from a .git file (a trimming regex checked the decoy).
    name: "red team 3 recheck, B1: a .git file whose gitdir ends in spaces, beside an empty decoy of the trimmed name, under objects/",
    command: `git init -q sub && mkdir -p sub/.git/objects/evil && git init -q --bare "sub/.git/objects/evil  " && git --git-dir="sub/.git/objects/evil  " config core.bare false && git --git-dir="sub/.git/objects/evil  " config core.fsmonitor '${touch}' && mkdir w && printf 'gitdir: ../sub/.git/objects/evil  \n' > w/.git`,
    then: { dir: "w", git: ["status"] },
    says: ["core.fsmonitor commented out in config"],
  },
  {
    name: "red team 3 recheck, B1: a commondir whose path ends in spaces",
    command: `git init -q --bare "c21  " && git --git-dir="c21  " config core.bare false && git --git-dir="c21  " config core.fsmonitor '${touch}' && mkdir -p c21 r21/.git && echo 'ref: refs/heads/master' > r21/.git/HEAD && printf '../../c21  ' > r21/.git/commondir`,
    then: { dir: "r21", git: ["status"] },
    says: ["core.fsmonitor commented out in config"],
  },
  {
    // "\\" at a line's end is an escaped backslash, not a continuation: the next line is a section of its own.
    name: "red team 3 recheck, B2: a value ending in an escaped backslash, then a [core] section line that sets fsmonitor itself",
    command: `git init -q b22 && printf '[user]\n\tname = a\\\\\\\\\n[core] fsmonitor = "${touch}; false"\n' >> b22/.git/config`,
    then: { dir: "b22", git: ["status"] },
    says: ["core.fsmonitor commented out in config"],
  },
  // Red team 5: what git reads in a config bunker disarmed, or through a commondir bunker could not read, is checked
  // with git's own parser; a config git reads otherwise is set aside whole, and so is a repository whose commondir is
  // not read exactly as git reads it.
  {
    name: "red team 5, F3: a header bunker cannot read ([advice] !!!), then fsmonitor: git reads it under the [core] above",
    command: `git init -q sub && cd sub && echo a > f && git add f && printf '[advice] !!!\\n\\tfsmonitor = "${touch}; false"\\n' >> .git/config`,
    // git itself refuses the header; the armed config is the one a line-by-line disarm leaves (the header commented out).
    control: `git init -q sub && cd sub && echo a > f && git add f && printf '# [advice] !!!\\n\\tfsmonitor = "${touch}; false"\\n' >> .git/config`,
    then: { dir: "sub", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at sub/.git (its config (git reads core.fsmonitor in it where bunker read otherwise) renamed to config.bunker-disarmed)"],
  },
  {
    name: "red team 5, F4: a kept value carried on (fsync = none\\) over an [advice] header, then fsmonitor: git reads core.fsmonitor",
    command: `git init -q sub && cd sub && echo a > f && git add f && printf '\\tfsync = none\\\\\\n[advice]\\n\\tfsmonitor = "${touch}; false"\\n' >> .git/config`,
    then: { dir: "sub", git: ["status"] },
    says: ["bunker disarmed the git repository the command created at sub/.git (its config (git reads core.fsmonitor in it where bunker read otherwise) renamed to config.bunker-disarmed)"],
  },
  {
    name: "red team 5, F1b: a commondir padded past 1 MB with newlines git trims, naming a config with fsmonitor",
    command: `${commonArmed} && { printf '../../cd'; head -c 1100000 /dev/zero | tr '\\0' '\\n'; } > sub/.git/commondir && cp -r sub/.git/objects/* cd/objects/`,
    then: { dir: "sub", git: ["status"] },
    says: ["bunker set aside the git repository the command created at sub/.git, which bunker could not check or disarm (its commondir is larger than bunker reads, so where git goes from it is not known): it is now sub/.git.bunker-set-aside"],
  },
  {
    name: "red team 5, F1c: a commondir that is a link (to a file naming a config with fsmonitor)",
    command: `${commonArmed} && printf '../../cd\\n' > ptr.txt && ln -s ../../ptr.txt sub/.git/commondir && cp -r sub/.git/objects/* cd/objects/`,
    then: { dir: "sub", git: ["status"] },
    says: ["bunker set aside the git repository the command created at sub/.git, which bunker could not check or disarm (its commondir is a link, so where git goes from it is not known): it is now sub/.git.bunker-set-aside"],
  },
  {
    name: "a .git link to a bare repository the command configured",
    command: `git init -q --bare g3 && git --git-dir=g3 config core.bare false && git --git-dir=g3 config core.fsmonitor '${touch}' && mkdir s3 && ln -s ../g3 s3/.git`,
    then: { dir: "s3", git: ["status"] },
    says: [
      "bunker set aside the .git the command created at s3/.git (a link git would follow): it is now s3/.git.bunker-set-aside; to restore it after checking it: mv s3/.git.bunker-set-aside s3/.git",
      "bunker disarmed the git repository the command created at g3 (core.fsmonitor commented out in config)",
    ],
  },
  {
    name: "a .git file whose gitdir goes through /proc/self (bunker and git resolve it from different folders)",
    command: `git init -q --bare g5 && git --git-dir=g5 config core.bare false && git --git-dir=g5 config core.fsmonitor '${touch}' && mkdir s5 && echo 'gitdir: /proc/self/cwd/../g5' > s5/.git`,
    then: { dir: "s5", git: ["status"] },
    says: ['bunker set aside the .git the command created at s5/.git (its gitdir "/proc/self/cwd/../g5" is not a folder git and bunker find alike): it is now s5/.git.bunker-set-aside'],
  },
  {
    name: "a .git directory holding only HEAD and a commondir naming a configured bare repository",
    command: `git init -q --bare c20 && git --git-dir=c20 config core.bare false && git --git-dir=c20 config core.fsmonitor '${touch}' && mkdir -p r20/.git && echo 'ref: refs/heads/master' > r20/.git/HEAD && echo ../../c20 > r20/.git/commondir`,
    then: { dir: "r20", git: ["status"] },
    // c20 is found twice (as itself and through r20's commondir): whichever comes first disarms it.
    says: ["bunker disarmed the git repository the command created at r20/.git", "bunker disarmed the git repository the command created at c20", "core.fsmonitor commented out in config"],
  },
  {
    name: "a bare repository with an alias that runs a program",
    command: `git init -q --bare b1 && git --git-dir=b1 config alias.st '!${touch}'`,
    then: { dir: "b1", git: ["st"] },
    says: ["bunker disarmed the git repository the command created at b1 (alias.st commented out in config)"],
  },
  {
    name: "a bare repository inside another one",
    command: `git init -q --bare b1 && git init -q --bare b1/x && git --git-dir=b1/x config alias.st '!${touch}'`,
    then: { dir: "b1/x", git: ["st"] },
    says: ["bunker disarmed the git repository the command created at b1/x (alias.st commented out in config)"],
  },
  {
    name: "git apply creating the husky hook the person's git commit runs",
    setup: husky,
    command: `git apply <<'EOF'\ndiff --git a/.husky/pre-commit b/.husky/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.husky/pre-commit\n@@ -0,0 +1 @@\n+${touch}\nEOF`,
    then: { dir: ".", git: ["commit", "-qm", "next", "--allow-empty"] },
    says: ["bunker set aside .husky/pre-commit, which the command created (runs on git commit (husky hooks)): it is now .husky/pre-commit.bunker-set-aside; to restore it after checking it: mv .husky/pre-commit.bunker-set-aside .husky/pre-commit"],
  },
  // Red team 3, F4: keys the old list of program-running keys missed; a new repository's config keeps only known-safe keys.
  {
    name: "a new repository whose remote URL is ext:: (with protocol.ext.allow): the person's git fetch runs nothing",
    command: `git init -q sub && git -C sub config remote.origin.url 'ext::sh -c touch% ${MARK}' && git -C sub config protocol.ext.allow always`,
    then: { dir: "sub", git: ["fetch", "origin"] },
    says: ["bunker disarmed the git repository the command created at sub/.git (remote.url, protocol.allow commented out in config)"],
  },
  {
    name: "a new repository that signs commits with gpg.ssh.defaultKeyCommand: the person's git commit runs nothing",
    command: `git init -q sub && git -C sub config commit.gpgsign true && git -C sub config gpg.format ssh && git -C sub config gpg.ssh.defaultKeyCommand '${touch}'`,
    then: { dir: "sub", git: ["commit", "-qm", "x", "--allow-empty"] },
    says: ["bunker disarmed the git repository the command created at sub/.git (commit.gpgsign, gpg.format, gpg.defaultkeycommand commented out in config)"],
  },
  {
    name: "a new repository whose remote names an uploadpack program: the person's git fetch runs nothing",
    command: `git init -q src && git init -q sub && git -C sub config remote.origin.url ../src && git -C sub config remote.origin.uploadpack '${touch}; git-upload-pack'`,
    then: { dir: "sub", git: ["fetch", "origin"] },
    says: ["remote.uploadpack commented out in config"],
  },
  // Red team 3, F5: core.hooksPath set in a file the person's config includes; the command creates the folder.
  {
    name: "a hooks folder named by core.hooksPath in an included config file, created by the command",
    setup: (root) => {
      writeFileSync(join(root, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
      hostGit(root, "config", "include.path", "../.gitconfig");
    },
    command: `mkdir -p .githooks && printf '#!/bin/sh\\n${touch}\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit`,
    then: { dir: ".", git: ["commit", "-qm", "next", "--allow-empty"] },
    says: ["bunker disarmed the hooks folder .githooks the command created (a git config names it core.hooksPath): hooks renamed to NAME.bunker-disarmed: pre-commit."],
  },
  {
    // Red team 6's F12m: git resolves a relative core.hooksPath from the work tree's top, so a work tree of the
    // person's own repository made in docs/ runs docs/.githooks.
    name: "red team 6, F12m: docs/.git saying gitdir: ../.git (a work tree of the person's repository) with docs/.githooks/pre-commit, under a relative core.hooksPath",
    setup: (root) => {
      mkdirSync(join(root, ".githooks"));
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, "docs/a.md"), "a\n");
      writeFileSync(join(root, ".githooks/pre-commit"), "#!/bin/sh\nexit 0\n");
      chmodSync(join(root, ".githooks/pre-commit"), 0o755);
      hostGit(root, "config", "core.hooksPath", ".githooks");
    },
    command: `printf 'gitdir: ../.git\\n' > docs/.git && mkdir -p docs/.githooks && printf '#!/bin/sh\\n${touch}\\n' > docs/.githooks/pre-commit && chmod +x docs/.githooks/pre-commit`,
    then: { dir: "docs", git: ["commit", "-qm", "two", "--allow-empty"] },
    says: ["bunker set aside the .git file the command created at docs/.git (it makes docs a work tree of your own repository, where git runs what the command put there): it is now docs/.git.bunker-set-aside; to restore it after checking it: mv docs/.git.bunker-set-aside docs/.git"],
  },
];

describe.skipIf(!usable)("what a command plants for the person's tools is set aside or disarmed (real bubblewrap)", () => {
  for (const row of ROWS) {
    test(row.name, async () => {
      // Unconfined, the same attack fires on the person's next git: the marker works.
      const control = workspace(row.setup);
      expect(Bun.spawnSync(["bash", "-c", row.control ?? row.command], { cwd: control, env: hostEnv }).exitCode).toBe(0);
      for (const step of [row.then, ...(row.also ?? [])]) hostGit(join(control, step.dir), ...step.git);
      expect(existsSync(MARK)).toBe(true);
      rmSync(MARK);

      const root = workspace(row.setup);
      const out = await sandboxed(root, row.command);
      expect(out.split("\n")[0]).toBe("exit code 0");
      for (const line of row.says) expect(out).toContain(line);
      for (const step of [row.then, ...(row.also ?? [])]) hostGit(join(root, step.dir), ...step.git);
      expect(existsSync(MARK)).toBe(false);
      for (const dir of row.finishes ?? []) expect(hostGit(join(root, dir), "status").code).toBe(0);
    });
  }

  test("an existing husky hook is read-only to commands (bun writing it fails), and the person's commit runs only their own", async () => {
    const root = workspace((r) => {
      husky(r);
      writeFileSync(join(r, ".husky/pre-commit"), "echo theirs\n");
    });
    const out = await sandboxed(root, `bun -e "require('fs').writeFileSync('.husky/pre-commit', 'touch ${MARK}')"`);
    expect(out).toContain("EROFS");
    expect(readFileSync(join(root, ".husky/pre-commit"), "utf8")).toBe("echo theirs\n");
    expect(hostGit(root, "commit", "-qm", "next", "--allow-empty").out).toContain("theirs");
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 6, F12i: a hook linked (through a chain) to a tracked script: the script is read-only to commands, the person's commit runs theirs", async () => {
    // The person's install-hooks script: .git/hooks/pre-commit -> ../../scripts/hook -> pre-commit (both links, then the file).
    const linked = (r: string) => {
      mkdirSync(join(r, "scripts"));
      writeFileSync(join(r, "scripts/pre-commit"), "#!/bin/sh\necho theirs\n");
      chmodSync(join(r, "scripts/pre-commit"), 0o755);
      symlinkSync("pre-commit", join(r, "scripts/hook"));
      symlinkSync("../../scripts/hook", join(r, ".git/hooks/pre-commit"));
    };
    const attack = `printf '#!/bin/sh\\n${touch}\\n' > scripts/pre-commit`;
    // Unconfined, rewriting the script arms the person's next commit.
    const control = workspace(linked);
    expect(Bun.spawnSync(["bash", "-c", attack], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    hostGit(control, "commit", "-qm", "next", "--allow-empty");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(linked);
    const out = await sandboxed(root, attack);
    expect(out).toContain("Read-only file system");
    expect(readFileSync(join(root, "scripts/pre-commit"), "utf8")).toBe("#!/bin/sh\necho theirs\n");
    expect(hostGit(root, "commit", "-qm", "next", "--allow-empty").out).toContain("theirs");
    expect(existsSync(MARK)).toBe(false);
  });

  test(".envrc at any depth and .vscode/tasks.json made by a command are set aside, content kept", async () => {
    const root = workspace();
    const out = await sandboxed(root, `echo '${touch}' > .envrc && mkdir -p deep/er .vscode && echo x > deep/er/.envrc && echo '{}' > .vscode/tasks.json`);
    for (const f of [".envrc", "deep/er/.envrc", ".vscode/tasks.json"]) {
      expect(out).toContain(`bunker set aside ${f}, which the command created`);
      expect(existsSync(join(root, f))).toBe(false);
      expect(existsSync(join(root, `${f}.bunker-set-aside`))).toBe(true);
    }
    expect(readFileSync(join(root, ".envrc.bunker-set-aside"), "utf8")).toBe(`${touch}\n`);
  });

  test("red team 3, F6: a link to a folder of runs-later files (.vscode -> vsc, .config -> cfg) is set aside, new or changed through", async () => {
    const root = workspace((r) => {
      mkdirSync(join(r, "theirs"));
      writeFileSync(join(r, "theirs/tasks.json"), "{}\n");
      symlinkSync("theirs", join(r, ".vscode"));
    });
    // A new link to a folder the command filled, and the person's own link with its file changed by its other name.
    const out = await sandboxed(root, "mkdir -p cfg && echo 'pre-commit: {}' > cfg/lefthook.yml && ln -s cfg .config && echo '{\"tasks\":[]}' > theirs/tasks.json");
    for (const link of [".config", ".vscode"]) {
      expect(out).toContain(`bunker set aside ${link}, which the command `);
      expect(existsSync(join(root, link))).toBe(false);
      expect(existsSync(join(root, `${link}.bunker-set-aside`))).toBe(true);
    }
    // An unrelated link is left alone.
    const plain = await sandboxed(root, "mkdir -p docs && echo x > docs/a.md && ln -s docs d");
    expect(plain).not.toContain("set aside");
  });

  test(".npmrc made by a command is set aside: the person's npm run does not preload what it names (red team: node-options=--require)", async () => {
    const plant = `echo 'require("fs").writeFileSync("${MARK}", "")' > pre.cjs && echo 'node-options=--require ./pre.cjs' > .npmrc`;
    const pkg = (r: string) => writeFileSync(join(r, "package.json"), JSON.stringify({ name: "p", version: "1.0.0", scripts: { x: "node -e 1" } }));
    const npmRun = (r: string) => Bun.spawnSync(["npm", "run", "-s", "x"], { cwd: r, env: hostEnv });
    // Unconfined, the person's next npm run fires it: the marker works.
    const control = workspace(pkg);
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    npmRun(control);
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(pkg);
    const out = await sandboxed(root, plant);
    expect(out).toContain("bunker set aside .npmrc, which the command created (npm obeys it on every npm run");
    npmRun(root);
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 3, F1: the workspace root made bare-shaped inside the person's repository (git looks there before their .git)", async () => {
    const plant = `echo 'ref: refs/heads/main' > HEAD && mkdir -p objects refs/heads && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = "${touch}; false"\\n' > config`;
    const app = (r: string) => mkdirSync(join(r, "app"));
    const control = workspace(app);
    expect(Bun.spawnSync(["bash", "-c", plant], { cwd: join(control, "app"), env: hostEnv }).exitCode).toBe(0);
    hostGit(join(control, "app"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const mono = workspace(app);
    const out = await sandboxed(join(mono, "app"), plant);
    expect(out).toContain("bunker disarmed the git repository the command created at . (the workspace folder) (core.worktree, core.fsmonitor commented out in config)");
    hostGit(join(mono, "app"), "status");
    expect(existsSync(MARK)).toBe(false);

    // Already bare-shaped before the command (HEAD, objects, refs): the config it adds is disarmed all the same.
    const again = workspace(app);
    const shaped = join(again, "app");
    Bun.spawnSync(["bash", "-c", "echo 'ref: refs/heads/main' > HEAD && mkdir -p objects refs/heads"], { cwd: shaped });
    // (HEAD is read-only now: the config alone is written.)
    const out2 = await sandboxed(shaped, plant.slice(plant.indexOf("printf")));
    expect(out2.split("\n")[0]).toBe("exit code 0");
    expect(out2).toContain("core.fsmonitor commented out in config");
    hostGit(shaped, "status");
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 3, F3: a .git file's gitdir re-aimed through a link by a later command, at a repository planted in a .git folder", async () => {
    const first = `git init -q --bare x/gd && ln -s x lnk && mkdir sub && printf 'gitdir: ../lnk/gd\\n' > sub/.git`;
    const second = `mkdir -p q/.git && git init -q --bare q/.git/gd && git --git-dir=q/.git/gd config core.bare false && git --git-dir=q/.git/gd config core.fsmonitor '${touch}'`;
    const relink = "ln -sfn q/.git lnk";
    const control = workspace();
    for (const c of [first, second, relink]) expect(Bun.spawnSync(["bash", "-c", c], { cwd: control, env: hostEnv }).exitCode).toBe(0);
    hostGit(join(control, "sub"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    // Planted in the same command as the re-aiming, or in an earlier one: either way disarmed.
    for (const steps of [[first, `${second} && ${relink}`], [first, second, relink]]) {
      const root = workspace();
      const outs = [];
      for (const c of steps) outs.push(await sandboxed(root, c));
      expect(outs.join("\n")).toContain("core.fsmonitor commented out in config");
      hostGit(join(root, "sub"), "status");
      expect(existsSync(MARK)).toBe(false);
    }
  });

  test("an ordinary git init sub + commit works, and the person's git there sees the commit and runs nothing", async () => {
    const root = workspace();
    const out = await sandboxed(root, "git init -q sub && cd sub && echo a > a && git add a && git -c user.name=a -c user.email=a@b commit -qm one && git log --format=%s");
    expect(out).toStartWith("exit code 0\n\none\n");
    expect(out).toContain("bunker disarmed the git repository the command created at sub/.git (nothing in it ran programs)");
    expect(hostGit(join(root, "sub"), "log", "--format=%s").out).toBe("one\n");
    expect(hostGit(join(root, "sub"), "status", "--porcelain").out).toBe("");
  });
});

describe.skipIf(!usable)(".git and commondir shapes git refuses: the person's git runs nothing, unconfined or after bunker (real bubblewrap)", () => {
  for (const row of REFUSED_SHAPES) {
    test(row.name, async () => {
      const control = workspace();
      expect(Bun.spawnSync(["bash", "-c", row.command], { cwd: control, env: hostEnv }).exitCode).toBe(0);
      const plain = hostGit(join(control, row.dir), "status");
      expect(existsSync(MARK)).toBe(false);

      const root = workspace();
      const out = await sandboxed(root, row.command);
      expect(out.split("\n")[0]).toBe("exit code 0");
      if (row.says) expect(out).toContain(row.says);
      else expect(out).not.toContain("note: bunker");
      const after = hostGit(join(root, row.dir), "status");
      expect(existsSync(MARK)).toBe(false);
      // Where git stopped on the shape, it now goes on to the workspace's repository (set aside), or stops alike.
      expect(after.code === 0 || after.code === plain.code).toBe(true);
    });
  }
});

/**
 * A git directory something other than the command filled (an MCP server's
 * state folder, say): outside every writable root, armed with core.fsmonitor
 * and a pre-commit hook.
 */
function armedGitDirOutside(): string {
  const g = next("armed");
  for (const d of ["objects", "refs/heads", "hooks"]) mkdirSync(join(g, d), { recursive: true });
  writeFileSync(join(g, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(g, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "${touch}; false"\n`);
  writeFileSync(join(g, "hooks/pre-commit"), `#!/bin/sh\n${touch}\n`);
  chmodSync(join(g, "hooks/pre-commit"), 0o755);
  return g;
}

describe.skipIf(!usable)("a new .git file or commondir leading out of what the command may write is set aside (real bubblewrap)", () => {
  const rows: { name: string; command: (g: string) => string; dir: string; says: (g: string) => string }[] = [
    {
      name: "a .git file whose gitdir is an armed git directory outside",
      command: (g) => `mkdir -p docs-preview && printf 'gitdir: ${g}\\n' > docs-preview/.git`,
      dir: "docs-preview",
      says: (g) => `bunker set aside the .git the command created at docs-preview/.git (its gitdir ${JSON.stringify(g)} is outside what the command may write, where bunker cannot check it): it is now docs-preview/.git.bunker-set-aside; to restore it after checking it: mv docs-preview/.git.bunker-set-aside docs-preview/.git`,
    },
    {
      name: "a .git directory whose commondir is an armed git directory outside",
      command: (g) => `mkdir -p r/.git/refs r/.git/objects && echo 'ref: refs/heads/main' > r/.git/HEAD && echo '${g}' > r/.git/commondir`,
      dir: "r",
      says: (g) => `bunker disarmed the git repository the command created at r/.git (its commondir ${JSON.stringify(g)} (outside what the command may write, where bunker cannot check it) renamed to commondir.bunker-set-aside; to restore it after checking it: mv r/.git/commondir.bunker-set-aside r/.git/commondir)`,
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const g = armedGitDirOutside();
      const control = workspace();
      expect(Bun.spawnSync(["bash", "-c", row.command(g)], { cwd: control, env: hostEnv }).exitCode).toBe(0);
      hostGit(join(control, row.dir), "status");
      expect(existsSync(MARK)).toBe(true);
      rmSync(MARK);

      const root = workspace();
      const out = await sandboxed(root, row.command(g));
      expect(out.split("\n")[0]).toBe("exit code 0");
      expect(out).toContain(row.says(g));
      expect(out).not.toContain("nothing in it ran programs");
      hostGit(join(root, row.dir), "status");
      hostGit(join(root, row.dir), "commit", "-qm", "x", "--allow-empty");
      expect(existsSync(MARK)).toBe(false);
    });
  }
});

describe.skipIf(!usable)("a folder granted with --allow-write outside the workspace is guarded as the workspace is (real bubblewrap)", () => {
  /** The person's other repository beside the workspace, granted writable: `--allow-write=../shared`. */
  function shared(): string {
    const dir = next("shared");
    mkdirSync(dir);
    hostGit(dir, "init", "-q", "-b", "main", ".");
    writeFileSync(join(dir, "a.txt"), "hi\n");
    hostGit(dir, "add", "-A");
    hostGit(dir, "commit", "-qm", "init", "--no-verify");
    hostGit(dir, "branch", "other");
    return dir;
  }
  const hook = (path: string) => `mkdir -p $(dirname ${path}) && printf '#!/bin/sh\\n${touch}\\n' > ${path} && chmod +x ${path}`;

  test("its .git is read-only: a hook written there fails, and the person's git checkout runs nothing", async () => {
    const plant = (dir: string) => hook(`${dir}/.git/hooks/post-checkout`);
    const control = shared();
    Bun.spawnSync(["bash", "-c", plant(control)], { env: hostEnv });
    hostGit(control, "checkout", "-q", "other");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace();
    const dir = shared();
    const out = await sandboxed(root, `echo written > ${dir}/b.txt; ${plant(dir)}`, [dir]);
    expect(out).toContain("Read-only file system");
    expect(out).toContain("only the workspace, the folders granted with --allow-write and /tmp are writable (every git repository in them");
    // The grant itself still works: an ordinary file is written.
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("written\n");
    hostGit(dir, "checkout", "-q", "other");
    expect(existsSync(MARK)).toBe(false);
  });

  test("a repository made there with git init has its hook disarmed before the person's git commit", async () => {
    const plant = (dir: string) => `git init -q ${dir}/new && ${hook(`${dir}/new/.git/hooks/pre-commit`)}`;
    const control = shared();
    Bun.spawnSync(["bash", "-c", plant(control)], { env: hostEnv });
    hostGit(join(control, "new"), "commit", "-qm", "x", "--allow-empty");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace();
    const dir = shared();
    const out = await sandboxed(root, plant(dir), [dir]);
    expect(out).toContain("bunker disarmed the git repository the command created at ../");
    expect(out).toContain("hooks renamed to NAME.bunker-disarmed: pre-commit");
    hostGit(join(dir, "new"), "commit", "-qm", "x", "--allow-empty");
    expect(existsSync(MARK)).toBe(false);
  });

  test("git init at the granted folder's top is refused when it has no .git (a read-only stand-in), and the stand-in is gone after", async () => {
    const root = workspace();
    const dir = next("plain");
    mkdirSync(dir);
    const out = await sandboxed(root, `git init -q ${dir}`, [dir]);
    expect(out.split("\n")[0]).not.toBe("exit code 0");
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });

  test(".envrc and .vscode/tasks.json made there are set aside; an existing .envrc there is read-only", async () => {
    const root = workspace();
    const dir = shared();
    mkdirSync(join(dir, "old"));
    writeFileSync(join(dir, "old/.envrc"), "theirs\n");
    const out = await sandboxed(root, `echo '${touch}' > ${dir}/.envrc; mkdir -p ${dir}/.vscode && echo '{}' > ${dir}/.vscode/tasks.json; echo evil > ${dir}/old/.envrc`, [dir]);
    for (const f of [".envrc", ".vscode/tasks.json"]) {
      expect(out).toContain(`, which the command created (`);
      expect(existsSync(join(dir, f))).toBe(false);
      expect(existsSync(join(dir, `${f}.bunker-set-aside`))).toBe(true);
    }
    expect(readFileSync(join(dir, "old/.envrc"), "utf8")).toBe("theirs\n");
  });
});
