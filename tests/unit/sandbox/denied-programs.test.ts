// --deny-run holds in the sandbox, not only in the judge (red team 11's F05): a program the judge lets run cannot
// start a denied one, by any name that leads to its file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { emptyRunRules } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { deniedProgramFiles, deniedProgramsHeld } from "../../../src/sandbox/denied-programs.ts";

/** --deny-run=NAMES as rules. */
function denyRun(...names: string[]) {
  const rules = emptyRunRules();
  rules.programs.push(...names);
  return rules;
}
import { runUnderFlags } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

describe("which files a --deny-run masks", () => {
  let dir: string;
  beforeAll(() => {
    dir = unseenDir("bunker-denied-programs-");
    mkdirSync(`${dir}/bin`);
    mkdirSync(`${dir}/lib`);
    writeFileSync(`${dir}/lib/tool-1.2`, "#!/bin/sh\n", { mode: 0o755 });
    symlinkSync("../lib/tool-1.2", `${dir}/bin/tool`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the real file behind each name on PATH; a whole-program rules pattern too; never a kept program", () => {
    const rules = emptyRunRules();
    rules.programs.push("tool");
    expect(deniedProgramFiles(rules, `${dir}/bin`)).toEqual([`${dir}/lib/tool-1.2`]);
    expect(deniedProgramFiles(rules, `${dir}/bin`, [`${dir}/bin/tool`])).toEqual([]);
    const patterns = emptyRunRules();
    patterns.patterns.push("tool *", "tool", "tool push");
    expect(deniedProgramFiles(patterns, `${dir}/bin`)).toEqual([`${dir}/lib/tool-1.2`]);
    patterns.patterns.splice(0, 1);
    // `run:tool` alone (no arguments) and `run:tool push` deny less than the program: nothing to mask.
    expect(deniedProgramFiles(patterns, `${dir}/bin`)).toEqual([]);
    expect(deniedProgramFiles(emptyRunRules(), `${dir}/bin`)).toEqual([]);
  });
});

const usable = detectSandbox().kind === "bubblewrap";
/** The system's own programs only (a version manager's shim needs the home the sandbox replaces). */
const SYSTEM_PATH = "/usr/bin:/bin";
const curl = Bun.which("curl", { PATH: SYSTEM_PATH });
const python = Bun.which("python3", { PATH: SYSTEM_PATH });

describe.skipIf(!usable || !curl || !python)("in the real sandbox, under --allow-run --deny-run=curl", () => {
  let ws: string;
  beforeAll(() => {
    ws = unseenDir("bunker-denied-programs-run-");
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  const run = (command: string, ...flags: string[]) => runUnderFlags(ws, command, ["--allow-run", ...flags], SYSTEM_PATH);

  test("a program the judge lets run cannot start it, by name, by path or through a link; nor copy it", async () => {
    const real = realpathSync(curl!);
    // What a prompt-injected model would try once `curl` itself is refused: python starts it every way it can.
    writeFileSync(
      `${ws}/probe.py`,
      [
        "import os, shutil, subprocess",
        `for argv in (["curl", "--version"], ["${real}", "--version"], ["/tmp/c", "--version"]):`,
        `    if argv[0] == "/tmp/c": os.symlink("${real}", "/tmp/c")`,
        "    try: subprocess.run(argv, check=True)",
        "    except Exception as e: print('refused:', type(e).__name__)",
        `shutil.copy("${real}", "/tmp/c2")`,
        "print('copy bytes:', os.path.getsize('/tmp/c2'))",
      ].join("\n"),
    );
    // The control: without the deny, python starts curl.
    expect(await run("python3 probe.py")).toMatch(/curl \d+\.\d+/);
    const r = await run("python3 probe.py", "--deny-run=curl");
    expect(r).not.toMatch(/curl \d+\.\d+/);
    expect(r.match(/refused: PermissionError/g)?.length).toBe(3);
    // The copy is empty: the file in the sandbox is /dev/null.
    expect(r).toContain("copy bytes: 0");
  });

  test("the shell every command starts with is never masked: a --deny-run=bash still lets commands run", async () => {
    expect(await run("echo still", "--deny-run=bash")).toContain("still");
  });
});


describe.skipIf(!usable)("in the real sandbox: a denied program's other names, and a multi-call binary (reviewer's R11-08, R11-11)", () => {
  let base: string;
  beforeAll(() => {
    base = unseenDir("bunker-denied-names-");
    mkdirSync(`${base}/ws`);
    mkdirSync(`${base}/bin`);
    mkdirSync(`${base}/bin/old`);
    // One program under three names (hard links, as /usr/bin/perl and /usr/bin/perl5.36.0 are): one beside it, one in
    // a folder the sandbox shows that is not on PATH.
    writeFileSync(`${base}/bin/tool`, "#!/bin/sh\necho tool ran\n", { mode: 0o755 });
    linkSync(`${base}/bin/tool`, `${base}/bin/tool-1.2`);
    linkSync(`${base}/bin/tool`, `${base}/bin/old/tool`);
    // A multi-call binary: every applet is a link to it, and it does what its name says.
    writeFileSync(`${base}/bin/busybox`, '#!/bin/sh\necho "applet $(basename "$0") ran"\n', { mode: 0o755 });
    for (const applet of ["fetchit", "lister"]) symlinkSync("busybox", `${base}/bin/${applet}`);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const run = (command: string, ...flags: string[]) => runUnderFlags(`${base}/ws`, command, ["--allow-run", ...flags], `${base}/bin:${SYSTEM_PATH}`);

  test("every name of the denied file is refused: its hard links beside it and in another folder the sandbox shows", async () => {
    // Started by a program the judge lets run (python), as a prompt-injected model would once `tool` is refused.
    writeFileSync(`${base}/ws/probe.py`, `import subprocess\nfor p in ("tool-1.2", "${base}/bin/old/tool"):\n    try: subprocess.run([p])\n    except Exception as e: print("refused:", type(e).__name__)\n`);
    expect((await run("python3 probe.py")).match(/tool ran/g)?.length).toBe(2);
    const r = await run("python3 probe.py", "--deny-run=tool");
    expect(r).not.toContain("tool ran");
    expect(r.match(/refused: PermissionError/g)?.length).toBe(2);
  });

  test("a multi-call binary's applet: the binary is not masked (its other applets still run), and the program is said to be not held", async () => {
    const r = await run("lister", "--deny-run=fetchit");
    expect(r).toContain("applet lister ran");
    expect(deniedProgramsHeld(denyRun("fetchit"), `${base}/bin`).notHeld).toEqual([{ name: "fetchit", file: `${base}/bin/busybox`, why: "multi-call" }]);
  });

  test("a multi-call binary installed as hard links: only the denied name is masked, and it is said to be not held", async () => {
    mkdirSync(`${base}/hbin`);
    writeFileSync(`${base}/hbin/busybox`, '#!/bin/sh\necho "applet $(basename "$0") ran"\n', { mode: 0o755 });
    for (const applet of ["hfetch", "hlist"]) linkSync(`${base}/hbin/busybox`, `${base}/hbin/${applet}`);
    const held = deniedProgramsHeld(denyRun("hfetch"), `${base}/hbin`);
    expect(held.files).toEqual([`${base}/hbin/hfetch`]);
    expect(held.notHeld).toEqual([{ name: "hfetch", file: `${base}/hbin/busybox`, why: "multi-call" }]);
    writeFileSync(`${base}/ws/h.py`, `import subprocess\nfor p in ("hlist", "hfetch"):\n    try: subprocess.run([p])\n    except Exception as e: print("refused:", type(e).__name__)\n`);
    const r = await runUnderFlags(`${base}/ws`, "python3 h.py", ["--allow-run", "--deny-run=hfetch"], `${base}/hbin:${SYSTEM_PATH}`);
    expect(r).toContain("applet hlist ran");
    expect(r).not.toContain("applet hfetch ran");
  });
});
