import { describe, expect, test } from "bun:test";
import { parseShell, type SimpleCommand } from "../../../src/shell/parse.ts";

/** One simple command as `A=1 prog arg >target`, for readable expectations. */
function show(c: SimpleCommand): string {
  const parts = [
    ...c.assignments.map((a) => `${a.name}=${a.value.text}`),
    ...c.argv.map((w) => w.text),
    ...c.redirects.map((r) => `${r.fd ?? ""}${r.op}${r.target ? r.target.text : ""}`),
  ];
  return parts.join(" ");
}

function commands(line: string): string[] {
  const r = parseShell(line);
  if (r.uncertain) throw new Error(`uncertain: ${r.uncertain}`);
  return r.commands.map(show);
}

function uncertain(line: string): string | null {
  return parseShell(line).uncertain;
}

describe("lists and pipelines", () => {
  test.each([
    ["git status", ["git status"]],
    ["a; b && c || d & e", ["a", "b", "c", "d", "e"]],
    ["a | b |& c", ["a", "b", "c"]],
    ["a\nb\n\nc", ["a", "b", "c"]],
    ["(a; (b)) | { c; d; }", ["a", "b", "c", "d"]],
    ["if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]],
    ["while a; do b; done; until c; do d; done", ["a", "b", "c", "d"]],
    ["for f in x y; do echo $f; done", ["echo $f"]],
    ["! a && b", ["a", "b"]],
    ["a # b; c\nd", ["a", "d"]],
    ["echo a#b", ["echo a#b"]],
    ["echo } {", ["echo } {"]],
  ])("%p", (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });
});

describe("substitutions count as commands", () => {
  test("$(…), nested, and inside double quotes", () => {
    expect(commands('echo "x $(a $(b) | c) y"')).toEqual(["b", "a $(…)", "c", "echo x $(…) y"]);
  });
  test("backticks, with escaped inner backticks", () => {
    expect(commands("echo `a \\`b\\``")).toEqual(["b", "a `…`", "echo `…`"]);
  });
  test("in assignments and redirection targets", () => {
    expect(commands("X=$(a) b > $(c)")).toEqual(["a", "c", "X=$(…) b >$(…)"]);
  });
  test("in for-loop word lists", () => {
    expect(commands("for f in $(ls); do cat $f; done")).toEqual(["ls", "cat $f"]);
  });
  test("a `)` inside quotes does not close $(", () => {
    expect(commands('echo $(echo ")"; b)')).toEqual(["echo )", "b", "echo $(…)"]);
  });
});

describe("quoting and escapes", () => {
  test.each([
    ["echo 'a b' \"c d\" e\\ f", ["echo a b c d e f"]],
    ["echo 'a;b' \"c|d\" e\\;f", ["echo a;b c|d e;f"]],
    ['echo "a\\"b" "\\$x" "\\q"', ['echo a"b $x \\q']],
    ["echo $'a\\tb\\x41\\101\\u00e9\\''", ["echo a\tbAAé'"]],
    ["g'i't st\"at\"us", ["git status"]],
    ["git \\\n  status \\\n  -s", ["git status -s"]],
    ['echo "line \\\ncontinued"', ["echo line continued"]],
    ["echo '$(not run)' \"\\$(not run)\"", ["echo $(not run) $(not run)"]],
  ])("%p", (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  test("word flags: expansion, glob, brace, tilde, quoted", () => {
    const [c] = parseShell("x $HOME *.ts '*.ts' a{b,c} ~/x '~' [ab] [").commands;
    const w = c!.argv;
    expect(w.map((x) => x.expanded)).toEqual([false, true, false, false, false, false, false, false, false]);
    expect(w.map((x) => x.glob)).toEqual([false, false, true, false, false, false, false, true, false]);
    expect(w[4]!.brace).toBe(true);
    expect(w[5]!.tilde).toBe(true);
    expect(w[6]!.tilde).toBe(false);
    expect(w[3]!.quoted).toBe(true);
  });
});

describe("redirections", () => {
  test.each([
    ["a > f", ["a >f"]],
    ["a >> f 2>&1", ["a >>f 2>&"]],
    ["a 2> err < in", ["a 2>err <in"]],
    ["a &> f; b &>> g", ["a &>f", "b &>>g"]],
    ["a >&2 <&- 3<> rw >| clob", ["a >& <& 3<>rw >|clob"]],
    ["a >&file", ["a >&file"]],
    ["{ a; b; } > out", ["a", "b", ">out"]],
    ["a <<< 'here string'", ["a <<<"]],
    ["echo 2 > x", ["echo 2 >x"]],
  ])("%p", (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });

  test("writes are marked", () => {
    const r = parseShell("a < in > out 2>&1").commands[0]!.redirects;
    expect(r.map((x) => x.writes)).toEqual([false, true, false]);
  });

  test("heredocs: bodies are skipped, unquoted bodies are scanned for commands", () => {
    expect(commands("cat <<EOF > f\nhello $(whoami)\nEOF\nls")).toEqual(["cat << >f", "whoami", "ls"]);
    expect(commands("cat <<'EOF'\n$(whoami); rm x\nEOF\nls")).toEqual(["cat <<", "ls"]);
    expect(commands("cat <<-\tEND\n\t$(a)\n\tEND\nb")).toEqual(["cat <<-", "a", "b"]);
    expect(commands('git commit -m "$(cat <<\'EOF\'\nmsg\nEOF\n)"')).toEqual(["cat <<", "git commit -m $(…)"]);
  });
});

describe("wrappers and nested shells", () => {
  test.each([
    ["X=1 Y='a b' git status", ["X=1 Y=a b git status"]],
    ["env X=1 git status", ["X=1 git status"]],
    ["env -i -u FOO X=1 -- git status", ["X=1 git status"]],
    ["command git status", ["git status"]],
    ["command -v git", ["command -v git"]],
    ["exec git status", ["git status"]],
    ["nohup git gc &", ["git gc"]],
    ["time -p git status", ["git status"]],
    ["nice -n 5 timeout -s KILL 10s git fetch", ["git fetch"]],
    ["bash -c 'a; b'", ["a", "b"]],
    ["sh -ec \"a | b\" name arg", ["a", "b"]],
    ["bash -c 'bash -c \"a && b\"'", ["a", "b"]],
    ["bash -c 'a' > out", [">out", "a"]],
    ["bash script.sh", ["bash script.sh"]],
  ])("%p", (line, expected) => {
    expect(commands(line)).toEqual(expected);
  });
});

describe("what cannot be read with certainty", () => {
  test.each([
    ["$CMD arg", "computed at run time"],
    ["${CMD} arg", "computed at run time"],
    ["$(which git) status", "computed at run time"],
    ["*.sh", "computed at run time"],
    ["eval 'rm -rf ~'", "eval"],
    ["source x.sh", "source"],
    [". x.sh", "`.`"],
    ["echo $((1 + 2))", "arithmetic"],
    ["((x++))", "arithmetic"],
    ["[[ $x -eq 1 ]]", "arithmetic"],
    ["echo ${x:1}", "expansion"],
    ["echo ${!ref}", "expansion"],
    ["diff <(a) >(b)", "process substitution"],
    ["case $x in a) b;; esac", "case"],
    ["f() { a; }", "function"],
    ["function f { a; }", "function"],
    ["echo 'open", "single quote"],
    ['echo "open', "double quote"],
    ["echo $(open", "not closed"],
    ["echo `open", "backtick"],
    ["a )", "unbalanced"],
    ["(a", "not closed"],
    ["cat <<EOF\nno end", "not closed"],
    ["PATH=/tmp git status", "PATH"],
    ["export LD_PRELOAD=/x.so", "LD_PRELOAD"],
    ["a[$(b)]=1", "array"],
    ["arr=(a b)", "array"],
    ['bash -c "$SCRIPT"', "computed at run time"],
    ["env --chdir=/ git status", "env --chdir"],
    ["a && && b", "unexpected"],
    ["exec {fd}>out", "{var}"],
  ])("%p", (line, why) => {
    expect(uncertain(line)).toContain(why);
  });

  test("commands before the uncertain point are still listed", () => {
    const r = parseShell("rm -rf x; eval y");
    expect(r.commands.map(show)).toEqual(["rm -rf x", "eval y"]);
    expect(r.uncertain).toContain("eval");
  });

  test("absurd nesting is uncertain, not a crash", () => {
    let line = "a";
    for (let i = 0; i < 20; i++) line = `echo $(${line})`;
    expect(uncertain(line)).toContain("nests too deeply");
  });
});
