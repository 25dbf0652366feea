// What a hook or a runs-later config runs by a literal path (red team 8's F16): the words that look like a file it
// runs, and not what a package manager or a tool finds by itself.
import { expect, test } from "bun:test";
import { expandKnown, isShellScript, namedPaths } from "../../../src/perms/named-scripts.ts";

test.each([
  ["a husky hook: sh scripts/x.sh", "#!/bin/sh\nsh scripts/precommit.sh\n", ["scripts/precommit.sh"]],
  ["a program by ./path, with arguments", './tools/hooks/pre-push "$@"\n', ["./tools/hooks/pre-push"]],
  ["a path where a command starts, without an extension", "set -e\ntools/lint --fix && bin/check\n", ["tools/lint", "bin/check"]],
  ["interpreters and source", ". ./env.sh; source lib/common\nnode build.mjs\npython3 check.py\n", ["./env.sh", "lib/common", "build.mjs", "check.py"]],
  ["any word an interpreter runs, past its options", "sh precommit\nbash -e scripts/lint\npython3 -u tools/check\n", ["precommit", "scripts/lint", "tools/check"]],
  ["an interpreter named by its path", "/usr/bin/python3 tools/hook\n/bin/sh precommit\n", ["/usr/bin/python3", "tools/hook", "/bin/sh", "precommit"]],
  ["a command past wrappers and assignments", "exec env FOO=1 tools/push-check \"$@\"\n", ["tools/push-check"]],
  ["bash -c's command", "bash -c 'tools/push-check --all'\n", ["tools/push-check"]],
  ["after a literal cd, read from there too", "cd tools && ./lint.sh\n", ["./lint.sh", "tools/./lint.sh"]],
  ["an option's value", "node-options=--require ./preload.js\n-javaagent:./agent.jar\n", ["./preload.js", "./agent.jar"]],
  ["pre-commit's local entries", "repos:\n- repo: local\n  hooks:\n  - id: a\n    entry: scripts/check.py\n  - id: b\n    entry: tools/lint --fix\n", ["scripts/check.py", "tools/lint"]],
  ["a JSON command (VS Code tasks, Claude Code hooks)", '{"tasks":[{"command":"./scripts/setup.sh","runOn":"folderOpen"}]}', ["./scripts/setup.sh"]],
  ["a TOML list (bunfig's preload)", 'preload = ["./test/setup.ts"]', ["./test/setup.ts"]],
  ["a .pth's import line", "import sys; exec(open('tools/boot.py').read())\n", ["tools/boot.py"]],
  ["an absolute path", "exec /usr/bin/git\n", ["/usr/bin/git"]],
  ["python -m: the files the module may be (red team 10's F11)", "python3 -m tools.lint --fix\n", ["tools/__init__.py", "tools.py", "tools/lint.py", "tools/lint/__init__.py", "tools/lint/__main__.py"]],
  ["-mNAME, past options that take a value, through uv run and pre-commit's entry", "uv run --frozen python -X dev -mci\n    entry: python -m pkg\n", ["ci.py", "ci/__init__.py", "ci/__main__.py", "pkg.py", "pkg/__init__.py", "pkg/__main__.py"]],
  ["-c's code names no file", "python3 -c 'import tools'\n", []],
  ["-m as the last of combined options, and uv run's own -m / --module (the reviewer's R10-06)", "python3 -Im tools.lint\npython -Bmci\nuv run -m pkg\nuv run --frozen --module=a.b\n", ["tools/__init__.py", "tools.py", "tools/lint.py", "tools/lint/__init__.py", "tools/lint/__main__.py", "ci.py", "ci/__init__.py", "ci/__main__.py", "pkg.py", "pkg/__init__.py", "pkg/__main__.py", "a/__init__.py", "a.py", "a/b.py", "a/b/__init__.py", "a/b/__main__.py"]],
  // Red team 11's R11-06: an option's value is no script, and what -r, --import, --preload, --env-file load is named.
  ["node's options that take a value", "node --env-file .env tools/lint\nnode -r dotenv/config tools/a\nnode --require=./setup --import ./reg.mjs -- tools/b\n", [".env", "tools/lint", "tools/a", "./setup", "./reg.mjs", "tools/b"]],
  ["bun's and tsx's", "bun --preload x script.ts\nbun run --preload ./p.ts --cwd web x.ts\ntsx --tsconfig tsconfig.lint.json tools/c\n", ["script.ts", "./p.ts", "x.ts", "web/x.ts", "tools/c"]],
  ["ruby's and perl's -I, -r, -M and -C", "ruby -I lib -r helpers tools/d.rb\nperl -Ilib -MFoo::Bar=a,b tools/e\nruby -C sub x.rb\n", ["tools/d.rb", "lib/helpers.rb", "tools/e", "lib/Foo/Bar.pm", "x.rb", "sub/x.rb"]],
  ["php's -d auto_prepend_file and -f, sh's -o, lua's -l", "php -d auto_prepend_file=./pre.php -f x.php\nbash -o pipefail scripts/f\nlua -l mod y.lua\n", ["./pre.php", "x.php", "scripts/f", "y.lua", "mod.lua"]],
  ["wrappers with options and operands of their own", "timeout -k 5 60 node t/1\nnice -n 10 node t/2\nenv -u FOO node t/3\nionice -c 3 node t/4\nstdbuf -o L node t/5\nxargs -n 1 node t/6\nexec -a x node t/7\nsudo -u bob node t/8\nflock /tmp/l node t/9\n", ["t/1", "t/2", "t/3", "t/4", "t/5", "t/6", "t/7", "t/8", "t/9"]],
  ["a wrapper's folder to run in", "env -C tools ./lint\n", ["./lint", "tools/./lint"]],
])("%s", (_, text, expected) => {
  expect(namedPaths(text)).toEqual(expected);
});

test.each([
  ["a package manager or a tool finds what it runs", "npm run lint && npx lint-staged\nbun test\n"],
  ["variables, substitutions and globs", 'sh "$ROOT/x.sh"\nnode $(pwd)/y.js\nlint src/**/*.ts\n'],
  ["comments and the #! line", "#!/usr/bin/env bash\n# run scripts/old.sh by hand\n"],
  ["options, URLs, and a path after a word that is no interpreter", "curl -fsSL https://example.com/install.sh\necho docs/readme\n--config=a/b\n"],
])("nothing from %s", (_, text) => {
  expect(namedPaths(text)).toEqual([]);
});

test("the words an interpreter is handed, which may be a folder it runs the entry file of, are said apart", () => {
  const handed = new Set<string>();
  expect(namedPaths("node web\npython3 cli --x\n./run.sh ./app\n", handed)).toEqual(["web", "cli", "./run.sh", "./app"]);
  expect([...handed]).toEqual(["web", "cli"]);
});

test("a named shell script is followed in turn; another program is not", () => {
  expect(isShellScript("scripts/a.sh", "")).toBe(true);
  expect(isShellScript("tools/lint", "#!/usr/bin/env bash\n")).toBe(true);
  expect(isShellScript("tools/lint", "#!/bin/sh\n")).toBe(true);
  expect(isShellScript("tools/lint.js", "#!/usr/bin/env node\n")).toBe(false);
  expect(isShellScript("check.py", "import os\n")).toBe(false);
});

test("the folder python puts first on its module path: the current one for -m (after a literal cd, that one), a script's own", () => {
  const first = new Set<string>();
  namedPaths("python3 -m tools.lint\npython3 scripts/check.py\ncd sub && python -m x\nnode web\npython3 -c 'import os'\n", undefined, first);
  expect([...first]).toEqual([".", "scripts", "sub"]);
});

test.each([
  ["git's top", 'python3 "$(git rev-parse --show-toplevel)/tools/lint.py"', "python3 /ws/tools/lint.py"],
  ["git's top, backquoted", "sh `git rev-parse --show-toplevel`/x.sh", "sh /ws/x.sh"],
  ["the hook's own folder (husky, pre-commit)", 'python3 "$(dirname "$0")/../tools/lint.py"\n. "$(dirname -- "$0")/_/husky.sh"\nnode "${0%/*}/web"', "python3 /ws/.husky/../tools/lint.py\n. /ws/.husky/_/husky.sh\nnode /ws/.husky/web"],
  ["a variable set to one of them", 'HERE="$(cd "$(dirname "$0")" && pwd)"\nexec "$HERE/run.sh"', "HERE=/ws/.husky\nexec /ws/.husky/run.sh"],
  ["the git directory", 'cd "$(git rev-parse --git-dir)/.." && sh $GIT_DIR/../x.sh', "cd /ws/.git/.. && sh /ws/.git/../x.sh"],
  ["where git runs a hook", "sh $PWD/a.sh; sh ${PWD}/b.sh; sh $(pwd)/c.sh", "sh /ws/a.sh; sh /ws/b.sh; sh /ws/c.sh"],
  ["VS Code's folder", '"command": "${workspaceFolder}/scripts/setup.sh"', '"command": /ws/scripts/setup.sh'],
  ["any other variable stays as it is", 'sh "$ROOT/x.sh" "$(dirname "$1")/y.sh"', 'sh "$ROOT/x.sh" "$(dirname "$1")/y.sh"'],
])("a hook naming its script through %s (red team 10's F11b)", (_, text, expanded) => {
  expect(expandKnown(text, { top: "/ws", self: "/ws/.husky", gitDir: "/ws/.git", workspaceFolder: "/ws" })).toBe(expanded);
});

test("once expanded, the script is named by its path, as the interpreter is handed it", () => {
  const handed = new Set<string>();
  expect(namedPaths(expandKnown('node "$(git rev-parse --show-toplevel)/web"', { top: "/ws", self: "/ws/.husky" }), handed)).toEqual(["/ws/web"]);
  expect([...handed]).toEqual(["/ws/web"]);
});

test("a hook's path after an expansion bunker cannot know is read as the same path from where it runs (fails closed); elsewhere it is left out", () => {
  const text = 'python3 "$ROOT/tools/lint.py"\nsh ${DIR}/ci/check.sh\nnode $(helper)/web\necho $HOME\n';
  expect(namedPaths(text)).toEqual([]);
  const handed = new Set<string>();
  expect(namedPaths(text, handed, undefined, true)).toEqual(["tools/lint.py", "ci/check.sh", "web"]);
  // (A quoted word starts a command of its own: named by its extension, not as what python is handed.)
  expect([...handed]).toEqual(["ci/check.sh", "web"]);
});

test("the folders a hook runs every file of: a loop that runs its variable, run-parts (red team 11's F09)", () => {
  const folders = new Set<string>();
  const text = [
    'for f in scripts/hooks.d/*; do\n  [ -x "$f" ] && "$f"\ndone',
    'for f in "ci/pre.d"/*.sh; do sh "$f"; done',
    "cd tools && for h in d/*; do . $h; done",
    "run-parts --exit-on-error -a x .githooks.d",
    // Data for a tool, the work tree's own files, and a glob in a folder's name: not taken.
    'for f in src/*.py; do black "$f"; python3 -m py_compile "$f"; done',
    'for f in *.sh; do sh "$f"; done',
    'for f in pkg/*/run.sh; do sh "$f"; done',
  ].join("\n");
  namedPaths(text, undefined, undefined, false, folders);
  // (After the literal cd, read from there too.)
  expect([...folders]).toEqual(["scripts/hooks.d", "ci/pre.d", "d", "tools/d", ".githooks.d", "tools/.githooks.d"]);
});

test("other ways a hook runs a folder's files, and python's bytecode folder (red team 11's F09, attacked)", () => {
  const folders = new Set<string>();
  const text = ['for f in $(ls scripts/hooks.d); do "scripts/hooks.d/$f"; done', "find .githooks/pre-commit.d -type f -exec {} \\;", 'find hooks.d -name "*.sh" -exec sh {} \\;', "find src -name '*.py' -exec black {} +", "python3 -X pycache_prefix=.pycache tools/lint.py"].join("\n");
  namedPaths(text, undefined, undefined, false, folders);
  expect([...folders].sort()).toEqual([".githooks/pre-commit.d", ".pycache", "hooks.d", "scripts/hooks.d"]);
});
