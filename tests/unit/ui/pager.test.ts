// /expand's pager (src/ui/pager.ts): the person's $PAGER or less on a
// terminal, the text printed where there is none; either way escaped, since
// command output is untrusted and a pager shows what it is given.
import { expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, pagerCommand } from "../../../src/ui/pager.ts";
import { tempDir } from "../../support/context.ts";

test("$PAGER is split into its words; without it, less that quits when the text fits", () => {
  expect(pagerCommand({ PAGER: " most -s " })).toEqual(["most", "-s"]);
  const less = Bun.which("less");
  expect(pagerCommand({})).toEqual(less ? [less, "-R", "-F", "-K"] : null);
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
