// SIGTERM and SIGHUP end bunker at any moment, within a second: the tracked
// command groups die with it, "exit" handlers run (the terminal is restored
// there), and the exit status says which signal it was.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { alive } from "../../support/process.ts";

const MODULE = join(import.meta.dir, "../../../src/sandbox/process.ts");

for (const [sig, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  test(`${sig}: the command group is killed, exit handlers run, exit ${code}, in under a second`, async () => {
    const script = `
      const { installSignalExits, trackGroup } = await import(${JSON.stringify(MODULE)});
      installSignalExits();
      process.on("exit", () => console.log("exit handler ran"));
      const child = Bun.spawn(["sleep", "30"], { detached: true, stdio: ["ignore", "ignore", "ignore"] });
      trackGroup(child.pid);
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    // process.env as the preload left it (no FORCE_COLOR to colour the pid it prints).
    const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit", env: process.env });
    const reader = proc.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const pid = Number(first.trim());
    expect(alive(pid)).toBe(true);
    const t = Date.now();
    proc.kill(sig);
    expect(await proc.exited).toBe(code);
    expect(Date.now() - t).toBeLessThan(1000);
    const rest = new TextDecoder().decode((await reader.read()).value);
    expect(rest).toContain("exit handler ran");
    const gone = Date.now() + 1000;
    while (alive(pid) && Date.now() < gone) await Bun.sleep(20);
    expect(alive(pid)).toBe(false);
  });
}
