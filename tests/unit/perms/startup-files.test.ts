// The person's startup files (startup-files.ts): one list; git's are guarded by git-guard.ts, the rest matched
// here by their own name and by where a link leads.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathEntries } from "../../../src/perms/path-shadow.ts";
import { gitConfigFiles, readShellFile, startupMatcher } from "../../../src/perms/startup-files.ts";
import { tempDir } from "../../support/context.ts";

const home = tempDir("bunker-startup-files-");
afterAll(() => rmSync(home, { recursive: true, force: true }));
mkdirSync(join(home, "dotfiles/fish"), { recursive: true });
symlinkSync("dotfiles/bash/.bashrc", join(home, ".bashrc"));
mkdirSync(join(home, ".config"));
symlinkSync("../dotfiles/fish", join(home, ".config/fish"));

test("git's config files are the list's git entries (global, XDG, GIT_CONFIG_GLOBAL)", () => {
  expect(gitConfigFiles({ GIT_CONFIG_GLOBAL: "/etc/team.gitconfig" }, home)).toEqual([
    join(home, ".gitconfig"), join(home, ".config/git/config"), join(home, ".config/git/ignore"), join(home, ".config/git/attributes"), "/etc/team.gitconfig",
  ]);
});

test("a startup file is matched by its name and where its link leads; a linked folder covers what is in it", () => {
  const { match } = startupMatcher({ HOME: home, BASH_ENV: "/srv/env.sh" }, home);
  expect(match(join(home, "dotfiles/bash/.bashrc"))).toBe("your shell runs it when it starts: what it says runs in your next terminal (it is ~/.bashrc)");
  expect(match(join(home, ".bashrc"))).toContain("(it is ~/.bashrc)");
  expect(match(join(home, "dotfiles/fish/conf.d/x.fish"))).toContain("(it is in ~/.config/fish)");
  expect(match("/srv/env.sh")).toContain("BASH_ENV names it");
  expect(match(join(home, "dotfiles/README"))).toBeNull();
  // git's own are git-guard.ts's.
  expect(match(join(home, ".gitconfig"))).toBeNull();
});

test("the key changes when a startup file's link is re-aimed", () => {
  const before = startupMatcher({ HOME: home }, home).key;
  symlinkSync("dotfiles/zsh/.zshrc", join(home, ".zshrc"));
  expect(startupMatcher({ HOME: home }, home).key).not.toBe(before);
});

test("PATH entries as bash reads them: a leading ~ expanded (before the literal one), others as written", () => {
  expect(pathEntries("~/bin:/usr/bin::~:~root/x:~nosuchuser/y:~+/z", "/h")).toEqual(["/h/bin", "~/bin", "/usr/bin", "", "/h", "~", "/root/x", "~root/x", "~nosuchuser/y", "./z", "~+/z"]);
});

const sourcedBy = (file: string, home: string) => readShellFile(file, home).sourced;

test("what a shell startup file sources: literal paths, ~ and $HOME, a plain variable set in it, a loop's glob as its folder", () => {
  const rc = join(home, "rc");
  writeFileSync(rc, [
    "export DOTFILES=~/dotfiles",
    'ZSH="$HOME/.oh-my-zsh"',
    "[ -f ~/.bash_aliases ] && . ~/.bash_aliases",
    "source $DOTFILES/shell/env.sh # comment",
    "source ${ZSH}/oh-my-zsh.sh",
    'for f in "$HOME"/.bash.d/*.sh; do . "$f"; done',
    "if true; then source /etc/bash_completion; fi",
    "source $UNKNOWN/x.sh",
    "echo . not-sourced",
  ].join("\n"));
  expect(sourcedBy(rc, home)).toEqual([
    { path: join(home, ".bash_aliases"), folder: false },
    { path: join(home, "dotfiles/shell/env.sh"), folder: false },
    { path: join(home, ".oh-my-zsh/oh-my-zsh.sh"), folder: false },
    { path: join(home, ".bash.d"), folder: true },
    { path: "/etc/bash_completion", folder: false },
  ]);
});

test("a source line bunker cannot read in a linked startup file makes that file's folder count whole (not the home)", () => {
  mkdirSync(join(home, "dotfiles/bash"), { recursive: true });
  const rc = join(home, "dotfiles/bash/.bashrc");
  writeFileSync(rc, 'source "$(dirname "${BASH_SOURCE[0]}")/aliases.sh"\n');
  expect(sourcedBy(rc, home)).toEqual([{ path: join(home, "dotfiles/bash"), folder: true }]);
  expect(startupMatcher({ HOME: home }, home).match(join(home, "dotfiles/bash/aliases.sh"))).toBe("your shell runs it when it starts: what it says runs in your next terminal (~/.bashrc sources what is in it)");
  writeFileSync(join(home, "rc2"), "source $NVM_DIR/nvm.sh\n");
  expect(sourcedBy(join(home, "rc2"), home)).toEqual([]);
});

test("the folders a shell startup file puts on PATH, before and after what it had", () => {
  writeFileSync(join(home, "rc3"), 'export DOTFILES=~/dotfiles\nexport PATH="$DOTFILES/bin:~/.local/bin:$PATH"\nPATH=$PATH:/opt/tools/bin # late\nPATH="$(brew --prefix)/bin:$PATH"\n');
  const read = readShellFile(join(home, "rc3"), home);
  expect(read.pathBefore).toEqual([join(home, "dotfiles/bin"), join(home, ".local/bin")]);
  expect(read.pathAfter).toEqual(["/opt/tools/bin"]);
});

test("PATH set the ways people write it: after a test and &&, inside if/then, with ${PATH:+:${PATH}}, declare -x, zsh's path arrays; not MANPATH (red team 10's F07)", () => {
  writeFileSync(join(home, "rc4"), [
    '[ -d "$HOME/tools/bin" ] && export PATH="$HOME/tools/bin:$PATH"',
    'if [ -d ~/go/bin ]; then PATH=~/go/bin:$PATH; fi',
    'PATH="$HOME/a/bin${PATH:+:${PATH}}"',
    'declare -x PATH=$PATH:/opt/late/bin',
    'path=(~/zbin $path)',
    'path+=(/opt/zlate)',
    'export MANPATH="$HOME/man:$MANPATH"',
    // The whole PATH, without what it had (reviewer's R10-11); PATH+= adds after it.
    "export PATH=$HOME/whole/bin:/usr/bin",
    'PATH+=":$HOME/plus/bin"',
    // A function of the file's own (red team 10's F07b), on one line and over several.
    'pathadd() { [ -d "$1" ] && PATH="$1:$PATH"; }',
    'pathadd "$HOME/fn/bin"',
    "append_path () {",
    '  PATH="${PATH:+$PATH:}$1"',
    "}",
    "append_path /opt/fnlate",
  ].join("\n") + "\n");
  const read = readShellFile(join(home, "rc4"), home);
  expect(read.pathBefore).toEqual([join(home, "fn/bin"), join(home, "tools/bin"), join(home, "go/bin"), join(home, "a/bin"), join(home, "zbin"), join(home, "whole/bin"), "/usr/bin"]);
  expect(read.pathAfter).toEqual(["/opt/fnlate", "/opt/late/bin", "/opt/zlate", join(home, "plus/bin")]);
});

test("a startup file that is a FIFO, or a 2 GB sparse file, is never waited on nor read whole: the head of it is", () => {
  const fifo = join(home, "rc-fifo");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const big = join(home, "rc-big");
  writeFileSync(big, `source ${join(home, "first.sh")}\n`);
  truncateSync(big, 2 ** 31);
  const rss = process.memoryUsage().rss;
  const t0 = Date.now();
  expect(sourcedBy(fifo, home)).toEqual([]);
  expect(sourcedBy(big, home)).toEqual([{ path: join(home, "first.sh"), folder: false }]);
  expect(Date.now() - t0).toBeLessThan(1000);
  expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
});

test("what ~/.ssh/config includes and what ~/.tmux.conf sources run later too (red team 8 F23)", () => {
  const h = tempDir("bunker-startup-inc-");
  mkdirSync(join(h, ".ssh"));
  mkdirSync(join(h, "dotfiles/ssh/conf.d"), { recursive: true });
  writeFileSync(join(h, ".ssh/config"), 'Host *\n  ServerAliveInterval 30\nInclude ~/dotfiles/ssh/extra "work.conf"\ninclude=~/dotfiles/ssh/conf.d/*.conf\n');
  writeFileSync(join(h, "dotfiles/ssh/extra"), "Include ../more\n");
  writeFileSync(join(h, ".tmux.conf"), "set -g mouse on\nsource-file -q ~/dotfiles/tmux/theme.conf\n");
  const { match } = startupMatcher({ HOME: h }, h);
  expect(match(join(h, "dotfiles/ssh/extra"))).toBe("ssh runs the ProxyCommand, LocalCommand and Match exec it names (~/.ssh/config sources it)");
  expect(match(join(h, ".ssh/work.conf"))).toContain("ssh runs the ProxyCommand");
  expect(match(join(h, "dotfiles/ssh/conf.d/a.conf"))).toContain("ssh runs the ProxyCommand");
  // Included from an included file: relative to ~/.ssh, as ssh reads it.
  expect(match(join(h, "more"))).toContain("(~/dotfiles/ssh/extra sources it)");
  expect(match(join(h, "dotfiles/tmux/theme.conf"))).toBe("tmux runs what it names (run-shell, if-shell) when it starts (~/.tmux.conf sources it)");
  expect(match(join(h, "dotfiles/README"))).toBeNull();
});

test("whatever a dot-entry of the home leads to is matched, whatever its name: every hop of a chain, a linked folder whole (one that holds the workspace too), links inside dot-folders (red team 10's F01)", () => {
  const h = tempDir("bunker-dot-links-");
  mkdirSync(join(h, "dotfiles/ipython/startup"), { recursive: true });
  mkdirSync(join(h, "dotfiles/real"), { recursive: true });
  mkdirSync(join(h, ".config"), { recursive: true });
  mkdirSync(join(h, "projects/dots"), { recursive: true });
  symlinkSync("dotfiles/gdbinit", join(h, ".gdbinit"));
  symlinkSync("../dotfiles/starship.toml", join(h, ".config/starship.toml"));
  symlinkSync("dotfiles/ipython", join(h, ".ipython"));
  // ~/.sqliterc -> dotfiles/sqliterc -> real/sqliterc: a command could put a file of its own at the middle hop.
  symlinkSync("real/sqliterc", join(h, "dotfiles/sqliterc"));
  symlinkSync("dotfiles/sqliterc", join(h, ".sqliterc"));
  // A stowed script in ~/.local/bin (red team 10's F01g: ~/.local was skipped with the caches).
  mkdirSync(join(h, ".local/bin"), { recursive: true });
  symlinkSync("../../dotfiles/deploy", join(h, ".local/bin/deploy"));
  // The repository bunker runs in, reached by a dot-folder link.
  symlinkSync("projects/dots", join(h, ".hammerspoon"));
  // The person's handle on a dotfiles repository (~/.dotfiles -> it) is no program's folder (reviewer's R11-04).
  mkdirSync(join(h, "projects/dotfiles-repo"), { recursive: true });
  symlinkSync("projects/dotfiles-repo", join(h, ".dotfiles"));
  const { match } = startupMatcher({ HOME: h }, h, [join(h, "projects/dots")]);
  expect(match(join(h, "dotfiles/gdbinit"))).toBe("a dot-entry of your home: the program that reads it runs what it says (~/.gdbinit leads here)");
  expect(match(join(h, "dotfiles/starship.toml"))).toContain("(~/.config/starship.toml leads here)");
  expect(match(join(h, "dotfiles/ipython/startup/evil.py"))).toContain("(~/.ipython leads here)");
  expect(match(join(h, "dotfiles/sqliterc"))).toContain("(~/.sqliterc leads here)");
  expect(match(join(h, "dotfiles/real/sqliterc"))).toContain("(~/.sqliterc leads here)");
  expect(match(join(h, "dotfiles/deploy"))).toContain("(~/.local/bin/deploy leads here)");
  expect(match(join(h, "dotfiles/notes.txt"))).toBeNull();
  // A dot-folder that leads to the workspace, or to a folder holding it: what a command writes there, the program
  // reading that folder runs (the reviewer's R10-10: ~/.ipython -> the workspace, its profile_default/startup/*.py).
  expect(match(join(h, "projects/dots/profile_default/startup/01-new.py"))).toBe("a dot-entry of your home: the program that reads it runs what it says (~/.hammerspoon leads here)");
  expect(match(join(h, "projects/dots/README"))).toContain("(~/.hammerspoon leads here)");
  expect(match(join(h, "projects/dotfiles-repo/README"))).toBeNull();
  // Not a link to the file system's root or to the home itself (wine's dosdevices/z: -> /): it leads to everything.
  mkdirSync(join(h, ".wine/dosdevices"), { recursive: true });
  symlinkSync("/", join(h, ".wine/dosdevices/z:"));
  symlinkSync(h, join(h, ".homelink"));
  const wine = startupMatcher({ HOME: h }, h, [join(h, "projects/dots")]);
  expect(wine.match(join(h, "projects/dots/README"))).toContain("(~/.hammerspoon leads here)");
  expect(wine.match(join(h, "projects/other/README"))).toBeNull();
  expect(wine.match("/etc/hostname")).toBeNull();
  // The walk is kept while the home's own entries stay as they are; a new link there is found.
  symlinkSync("dotfiles/later", join(h, ".laterrc"));
  expect(startupMatcher({ HOME: h }, h).match(join(h, "dotfiles/later"))).toContain("(~/.laterrc leads here)");
  rmSync(h, { recursive: true, force: true });
});
