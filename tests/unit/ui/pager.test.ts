// /expand's pager (src/ui/pager.ts): the person's $PAGER or less on a
// terminal, the text printed where there is none; either way escaped, since
// command output is untrusted and a pager shows what it is given.
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { distrustForHostPrograms, hostProgram } from "../../../src/sandbox/host-program.ts";
import { join } from "node:path";
import { page, pagerCommand } from "../../../src/ui/pager.ts";
import { tempDir } from "../../support/context.ts";

test("$PAGER is split into its words; without it, less, which waits for q however short the text (N12-16)", () => {
  const sh = hostProgram("sh");
  expect(pagerCommand({ PAGER: " sh -s " })).toEqual(sh ? [sh, "-s"] : null);
  expect(pagerCommand({ PAGER: "/opt/pager -s" })).toEqual(["/opt/pager", "-s"]);
  const less = Bun.which("less");
  expect(pagerCommand({})).toEqual(less ? [less, "-R", "-K"] : null);
});

test("$PAGER=less never runs a less a command planted in a workspace folder on PATH (it runs on the host)", async () => {
  const ws = tempDir("bunker-pager-ws-");
  const bin = join(ws, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  const ran = join(ws, "ran");
  writeFileSync(join(bin, "less"), `#!/bin/sh\necho planted > "${ran}"\ncat > /dev/null\n`);
  chmodSync(join(bin, "less"), 0o755);
  distrustForHostPrograms([ws]);
  try {
    for (const PAGER of ["less", "./node_modules/.bin/less"]) {
      const command = pagerCommand({ PAGER, PATH: `${bin}:/usr/bin:/bin` });
      expect(command?.[0] ?? null).not.toStartWith(ws);
      expect(command?.[0] ?? null).not.toStartWith(".");
    }
    await page("long text", () => {}, { env: { PAGER: "less", PATH: `${bin}:/usr/bin:/bin` }, tty: true });
    expect(existsSync(ran)).toBe(false);
    // The control: with another folder distrusted, the same PATH finds the planted one first.
    distrustForHostPrograms([tempDir("bunker-pager-other-")]);
    expect(pagerCommand({ PAGER: "less", PATH: `${bin}:/usr/bin:/bin` })).toEqual([join(bin, "less")]);
  } finally {
    distrustForHostPrograms([process.cwd()]);
  }
});

test("the pager gets the text escaped, with a final newline, and runs with LESSSECURE", async () => {
  const dir = tempDir("bunker-pager-");
  const pager = join(dir, "pager.sh");
  // A pager that keeps what it was given and what it was told, instead of showing it.
  writeFileSync(pager, `#!/bin/sh\ncat > "${dir}/shown"\necho "$LESSSECURE" > "${dir}/secure"\n`);
  chmodSync(pager, 0o755);
  const printed: string[] = [];
  await page("ok\n\x1b]52;c;aGk=\x07done\tend", (t) => printed.push(t), { env: { PAGER: pager }, tty: true });
  expect(printed).toEqual([]);
  const shown = readFileSync(join(dir, "shown"), "utf8");
  expect(shown).not.toContain("\x1b");
  expect(shown).not.toContain("\x07");
  expect(shown.startsWith("ok\n")).toBe(true);
  expect(shown.endsWith("done\tend\n")).toBe(true);
  expect(readFileSync(join(dir, "secure"), "utf8")).toBe("1\n");
});

test("not on a terminal, or with a pager that cannot run, the text is printed, escaped, instead", async () => {
  for (const opts of [{ tty: false }, { tty: true, env: { PAGER: "/nonexistent/pager" } }]) {
    const printed: string[] = [];
    await page("line\x1b[2J", (t) => printed.push(t), opts);
    expect(printed).toHaveLength(1);
    expect(printed[0]).not.toContain("\x1b");
    expect(printed[0]!.startsWith("line")).toBe(true);
    expect(printed[0]!.endsWith("\n")).toBe(true);
  }
});
