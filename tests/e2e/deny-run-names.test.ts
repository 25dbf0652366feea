// --deny-run holds for every name of the denied file (reviewer's R11-11): bunker itself, the judge letting python run
// (--allow-run), and python starting the program by another name the host already has for it (a hard link: on Debian
// /usr/bin/perl and /usr/bin/perl5.NN.N are one file). A multi-call binary's applet, which the sandbox cannot hide
// alone, is said at start (R11-08).
import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
let fake: FakeAnthropic | undefined;
const run = (command: string) => toolUse("run_bash", { command });

/** The host's perl and another name of the same file in /usr/bin (perl5.36.0), if it has one. */
function perlTwin(): string | null {
  try {
    const perl = statSync("/usr/bin/perl");
    if (perl.nlink < 2) return null;
    const twin = readdirSync("/usr/bin").find((n) => n !== "perl" && n.startsWith("perl") && statSync(join("/usr/bin", n)).ino === perl.ino);
    return twin ? join("/usr/bin", twin) : null;
  } catch {
    return null;
  }
}
const twin = perlTwin();

describe.skipIf(!usable || !twin || !Bun.which("python3", { PATH: "/usr/bin:/bin" }))("--deny-run=perl, and perl's other name on the host", () => {
  test(`${twin} does not start perl either`, async () => {
    fake = runs.start([]);
    const { root, env } = runs.workspace("bunker-deny-run-names-", fake.url);
    writeFileSync(join(root, "probe.py"), `import subprocess\nfor p in ("perl", "${twin}"):\n    try: subprocess.run([p, "-e", "print qq(perl ran\\\\n)"])\n    except Exception as e: print("refused:", type(e).__name__)\n`);
    fake.push(reply([run("python3 probe.py")]), reply("Done."));
    const r = await runHeadless(root, { ...env, PATH: "/usr/bin:/bin" }, ["-p", "go", "--allow-run", "--no-prompt", "--deny-run=perl"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).not.toContain("perl ran");
    expect(result!.content.match(/refused: PermissionError/g)?.length).toBe(2);
  });
});

describe.skipIf(!usable)("--deny-run of a multi-call binary's applet", () => {
  test("bunker says, before the first command, that the sandbox does not hold it, and how to hold it; a headless turn that runs no command never looks (reviewer's R12-05)", async () => {
    fake = runs.start([]);
    const { base, root, env } = runs.workspace("bunker-deny-run-applet-", fake.url);
    mkdirSync(join(base, "bin"));
    writeFileSync(join(base, "bin/busybox"), "#!/bin/sh\necho applet\n", { mode: 0o755 });
    symlinkSync("busybox", join(base, "bin/fetchit"));
    linkSync(join(base, "bin/busybox"), join(base, "bin/other"));
    const said = `--deny-run=fetchit: fetchit is an applet of ${base}/bin/busybox, which other programs are too, so the sandbox cannot hide it alone`;
    const path = { ...env, PATH: `${base}/bin:/usr/bin:/bin` };
    fake.push(reply("Nothing to do."));
    const quiet = await runHeadless(root, path, ["-p", "go", "--no-prompt", "--deny-run=fetchit"]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain(said);
    fake.push(reply([toolUse("run_bash", { command: "echo hi" })]), reply("Done."));
    const r = await runHeadless(root, path, ["-p", "go", "--no-prompt", "--allow-run", "--deny-run=fetchit"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(said);
    expect(r.stderr).toContain("Deny busybox itself to hold it");
  });
});

describe.skipIf(!usable || !Bun.which("python3", { PATH: "/usr/bin:/bin" }))("red team 11's F05b: --deny-run of a program a version manager's shim stands for", () => {
  test("the versions' own binaries behind pyenv's (or asdf's) shim do not start it either, by the shim or by their path", async () => {
    fake = runs.start([]);
    const { root, home, env } = runs.workspace("bunker-deny-run-shims-", fake.url);
    const managers = [
      { shims: join(home, ".pyenv/shims"), bin: join(home, ".pyenv/versions/3.12.1/bin") },
      { shims: join(home, ".asdf/shims"), bin: join(home, ".asdf/installs/tool/2.0/bin") },
    ];
    for (const { shims, bin } of managers) {
      mkdirSync(shims, { recursive: true });
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, "tool"), "#!/bin/sh\necho tool ran\n", { mode: 0o755 });
      // What a shim does: finds the selected version's binary and runs it.
      writeFileSync(join(shims, "tool"), `#!/bin/sh\nexec "${bin}/tool" "$@"\n`, { mode: 0o755 });
    }
    const paths = ["tool", ...managers.map((m) => join(m.bin, "tool"))];
    writeFileSync(join(root, "probe.py"), `import subprocess\nfor p in ${JSON.stringify(paths)}:\n    try: subprocess.run([p])\n    except Exception as e: print("refused:", type(e).__name__)\n`);
    fake.push(reply([run("python3 probe.py")]), reply("Done."));
    const PATH = `${managers.map((m) => m.shims).join(":")}:/usr/bin:/bin`;
    const r = await runHeadless(root, { ...env, PATH }, ["-p", "go", "--allow-run", "--no-prompt", "--deny-run=tool"]);
    expect(r.code).toBe(0);
    const [result] = toolResults(fake.requests[1]);
    expect(result!.content).not.toContain("tool ran");
    expect(result!.content.match(/refused: PermissionError/g)?.length).toBe(3);
  });
});
