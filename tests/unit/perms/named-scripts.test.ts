// What a hook or a runs-later config runs by a literal path (red team 8's F16): the words that look like a file it
// runs, and not what a package manager or a tool finds by itself.
import { expect, test } from "bun:test";
import { isShellScript, namedPaths } from "../../../src/perms/named-scripts.ts";

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
  ["python -m: the files the module may be (red team 10's F11)", "python3 -m tools.lint --fix\n", ["tools/__init__.py", "tools/lint.py", "tools/lint/__init__.py", "tools/lint/__main__.py"]],
  ["-mNAME, past options that take a value, through uv run and pre-commit's entry", "uv run --frozen python -X dev -mci\n    entry: python -m pkg\n", ["ci.py", "ci/__init__.py", "ci/__main__.py", "pkg.py", "pkg/__init__.py", "pkg/__main__.py"]],
  ["-c's code names no file", "python3 -c 'import tools'\n", []],
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
