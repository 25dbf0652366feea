// Whether a standard stream is a terminal, asked without building Node's
// stream: the same answer as node:tty, piped and on a real terminal (script(1)'s pty).
import { expect, test } from "bun:test";
import { closeSync, openSync } from "node:fs";
import { isatty } from "node:tty";
import { join } from "node:path";
import { isTerminal } from "../../../src/ui/is-terminal.ts";

const MODULE = JSON.stringify(join(import.meta.dir, "../../../src/ui/is-terminal.ts"));

test("isTerminal agrees with node:tty for this process's fds and a file", () => {
  const fd = openSync("/dev/null", "r");
  try {
    for (const n of [0, 1, 2, fd]) expect(isTerminal(n)).toBe(isatty(n));
  } finally {
    closeSync(fd);
  }
});

test("on a real terminal (script(1)'s pty) stdin, stdout and stderr are terminals; piped they are not", async () => {
  const script = `import { isTerminal } from ${MODULE}; console.log(JSON.stringify([0, 1, 2].map((fd) => isTerminal(fd))))`;
  const piped = Bun.spawn([process.execPath, "-e", script], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  expect((await new Response(piped.stdout).text()).trim()).toBe("[false,false,false]");
  const pty = Bun.spawn(["script", "-qec", `${process.execPath} -e '${script}'`, "/dev/null"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  expect((await new Response(pty.stdout).text()).trim()).toBe("[true,true,true]");
});
