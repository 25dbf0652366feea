// bunker as a child subreaper: a process that leaves its parent's group and
// is orphaned is adopted by this process, found, killed and reaped.
import { expect, test } from "bun:test";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { adoptedNow, becomeSubreaper, endTree, killEscaped, processTree } from "../../../src/sandbox/reaper.ts";
import { tempDir } from "../../support/context.ts";
import { alive } from "../../support/process.ts";

test.skipIf(process.platform !== "linux")("an orphan that called setsid is adopted, then killed and reaped; the ones adopted before are left alone", async () => {
  expect(becomeSubreaper()).toBe(true);
  // What this test process adopted before (tmux servers of other tests) is not this test's to kill.
  const before = adoptedNow();
  const orphan = async () => {
    // The shell exits at once: its setsid'd child is orphaned, and adopted here.
    const sh = Bun.spawn(["sh", "-c", "setsid sleep 100 > /dev/null 2>&1 & echo $!"], { stdout: "pipe", detached: true });
    const pid = Number((await new Response(sh.stdout).text()).trim());
    await sh.exited;
    for (let i = 0; i < 100 && !adoptedNow().has(pid); i++) await Bun.sleep(10);
    return pid;
  };
  const earlier = await orphan();
  const pid = await orphan();
  expect([...adoptedNow()]).toEqual(expect.arrayContaining([earlier, pid]));
  expect(killEscaped(new Set([...before, earlier]))).toBe(1);
  expect(alive(pid)).toBe(false);
  expect(adoptedNow().has(pid)).toBe(false); // reaped, not a zombie
  expect(alive(earlier)).toBe(true);
  killEscaped(before);
  expect(alive(earlier)).toBe(false);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("endTree: a bwrap sandbox whose processes ignore SIGTERM and leave its session is gone when it returns; nothing in it writes after", async () => {
  const dir = tempDir("bunker-endtree-");
  const file = join(dir, "out");
  writeFileSync(file, "");
  const loop = `while :; do echo x >> ${file}; done`;
  const p = Bun.spawn([detectSandbox().program!, "--ro-bind", "/", "/", "--bind", dir, dir, "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "--new-session", "--",
    "sh", "-c", `trap '' TERM; (trap '' TERM; ${loop}) & setsid sh -c '${loop}' & wait`], { stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < 200 && statSync(file).size === 0; i++) await Bun.sleep(5);
  const tree = processTree(p.pid);
  expect(tree.size).toBeGreaterThanOrEqual(4);
  expect(endTree(p.pid, tree)).toBe(true);
  for (const pid of tree.keys()) expect(alive(pid)).toBe(false);
  const size = statSync(file).size;
  await Bun.sleep(100);
  expect(statSync(file).size).toBe(size);
  rmSync(dir, { recursive: true, force: true });
});
