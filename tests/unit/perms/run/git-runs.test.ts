// What a git line hands git to run (src/perms/run/git-runs.ts): the judge
// treats each as running that program, so each must be found, named by the
// words that hand it over, with the line git will run.
import { expect, test } from "bun:test";
import { gitRuns } from "../../../../src/perms/run/git-runs.ts";
import { parseShell } from "../../../../src/shell/parse.ts";

const runs = (line: string) => gitRuns(parseShell(line).commands[0]!.argv);

test.each([
  ["git -c core.pager=less log", [{ via: "-c core.pager=less", command: "less" }]],
  ["git -C . -c diff.external=./d.sh diff", [{ via: "-c diff.external=./d.sh", command: "./d.sh" }]],
  ["git rebase --exec 'make test' main", [{ via: "rebase --exec 'make test'", command: "make test" }]],
  ["git bisect run ./t.sh x", [{ via: "bisect run", command: "./t.sh x" }]],
  ["git difftool -x 'vim -d'", [{ via: "difftool -x 'vim -d'", command: "vim -d" }]],
  ["git fetch --upload-pack=evil", [{ via: "fetch --upload-pack=evil", command: "evil" }]],
  ["git submodule foreach 'rm -rf x'", [{ via: "submodule foreach", command: "rm -rf x" }]],
])("%p hands git a program", (line, expected) => {
  expect(runs(line)).toEqual(expected);
});

test.each(["git status", "git log --oneline -5", "git commit -m 'run make'", "ls -c core.pager=x"])("%p hands git nothing to run", (line) => {
  expect(runs(line)).toEqual([]);
});
