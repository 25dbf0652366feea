// The terminal is given back at exit, also when the exit comes from SIGTERM's
// handler (sandbox/process.ts): raw mode off, bracketed paste off, cursor shown.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { GIVE_BACK } from "../../../src/ui/tty-exit.ts";

const TTY_EXIT = join(import.meta.dir, "../../../src/ui/tty-exit.ts");
const SIGNALS = join(import.meta.dir, "../../../src/sandbox/process.ts");

/** Runs `body` in a fresh bun with giveBackAtExit on a fake terminal (writes and raw-mode calls go to stdout), then SIGTERMs it. */
async function run(body: string): Promise<{ code: number; out: string }> {
  const script = `
    const { giveBackAtExit } = await import(${JSON.stringify(TTY_EXIT)});
    const { installSignalExits } = await import(${JSON.stringify(SIGNALS)});
    installSignalExits();
    const input = { setRawMode: (on) => process.stdout.write("raw " + on + ";") };
    const output = { write: (text) => process.stdout.write(text) };
    ${body}
    process.stdout.write("ready;");
    setInterval(() => {}, 1000);`;
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("ready;")) out += new TextDecoder().decode((await reader.read()).value);
  proc.kill("SIGTERM");
  const code = await proc.exited;
  for (let r = await reader.read(); !r.done; r = await reader.read()) out += new TextDecoder().decode(r.value);
  return { code, out };
}

test("SIGTERM while the terminal is taken: exit 143, and on the way out the cursor is shown and raw mode is off", async () => {
  const { code, out } = await run("giveBackAtExit(input, output);");
  expect(code).toBe(143);
  expect(out).toBe(`ready;${GIVE_BACK}raw false;`);
  expect(GIVE_BACK).toContain("\x1b[?25h");
  expect(GIVE_BACK).toContain("\x1b[?2004l");
  expect(GIVE_BACK).toContain("\x1b[?7h");
});

test("once its user is done with the terminal, nothing is written at exit", async () => {
  const { code, out } = await run("giveBackAtExit(input, output)();");
  expect(code).toBe(143);
  expect(out).toBe("ready;");
});
