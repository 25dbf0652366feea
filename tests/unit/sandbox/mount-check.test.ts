// The check inside the sandbox before a command (red team 6's F12j): a folder
// swapped for a link between the walk and bubblewrap's mounts carries the
// read-only mount onto the link's target, and the real .git stays writable.
// The real-run row makes that swap at exactly that moment (after the walk,
// before bwrap), then runs the attack's write in real bubblewrap.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { mountChecks, mountsFailing, parseMountinfo } from "../../../src/sandbox/mount-check.ts";
import { commandSandboxSpec, type RunBashOptions } from "../../../src/tools/run-bash.ts";
import { plantingBench } from "../../support/planting.ts";

const avail = detectSandbox();
const usable = avail.kind === "bubblewrap";
const { MARK, touch, hostGit, workspace, env, home } = plantingBench("bunker-mountcheck-");

describe("what the check reads", () => {
  test("mountinfo: escaped mount points, the last mount at a point on top, ro from its own options", () => {
    const info = [
      "1 0 0:1 / / rw,relatime - tmpfs tmpfs rw",
      "2 1 8:1 /ws /ws rw,relatime - ext4 /dev/vda rw",
      "3 2 8:1 /ws/my\\040dir/.git /ws/my\\040dir/.git ro,nosuid - ext4 /dev/vda rw",
      "4 2 8:1 /ws/x /ws/x ro - ext4 /dev/vda rw",
      "5 2 8:1 /ws/x /ws/x rw - ext4 /dev/vda rw",
    ].join("\n");
    const points = parseMountinfo(info);
    expect(points.get("/ws/my dir/.git")).toBe(true);
    expect(points.get("/ws/x")).toBe(false);
    const ok = (p: string) => (p.endsWith(".git") ? "8:9" : null);
    const noLink = () => false;
    expect(mountsFailing([{ path: "/ws/my dir/.git", id: "8:9" }], info, ok, noLink)).toBeNull();
    expect(mountsFailing([{ path: "/ws/my dir/.git", id: "8:1" }], info, ok, noLink)).toContain("is not the folder or file bunker's check found there");
    expect(mountsFailing([{ path: "/ws/x", id: null }], info, ok, noLink)).toContain("is mounted writable");
    expect(mountsFailing([{ path: "/ws/x", id: null, mask: true }], info, ok, noLink)).toBeNull();
    expect(mountsFailing([{ path: "/ws/tools/.git", id: null }], info, ok, noLink)).toContain("has no read-only mount of its own");
    expect(mountsFailing([{ path: "/ws/my dir/.git", id: "8:9" }], info, ok, (p) => p === "/ws/my dir")).toBe("/ws/my dir/.git was reached through a link (/ws/my dir) when the sandbox was built");
  });

  test("only read-only mounts inside what a writer can change are checked; the person's own .git link is not a swap; what the walk found and is gone is checked too", () => {
    const mounts = [
      { kind: "ro" as const, path: "/usr" },
      { kind: "rw" as const, path: "/ws" },
      { kind: "ro" as const, path: "/ws/.git" },
      { kind: "ro" as const, path: "/ws/tools/.git" },
      { kind: "empty" as const, path: "/ws/.bunker", writable: false },
      { kind: "mask" as const, path: "/ws/secret.txt", dir: false },
    ];
    const kind = (p: string) => (p === "/ws/.git" || p === "/ws/tools/.git" ? ("link" as const) : ("dir" as const));
    const checks = mountChecks(mounts, ["/ws"], new Set(["/ws/.git"]), kind, ["/ws/tools/.git", "/ws/gone/.git", "/elsewhere/.git"], () => "1:2");
    expect(checks).toEqual([
      { path: "/ws/gone/.git", id: "gone when the sandbox was built" },
      { path: "/ws/tools/.git", id: "a link" },
      { path: "/ws/.bunker", id: null },
      { path: "/ws/secret.txt", id: null, mask: true },
    ]);
  });
});

describe.skipIf(!usable)("a link swapped in between the walk and the mounts (real bubblewrap)", () => {
  const opts: RunBashOptions = { sandbox: "on", allowNet: false, allowEnv: [], gitWritable: false, env, home };
  const nested = (r: string) => {
    hostGit(r, "init", "-q", "tools");
    hostGit(join(r, "tools"), "commit", "-q", "--allow-empty", "-m", "one");
    mkdirSync(join(r, "decoy/.git"), { recursive: true });
  };
  const arm = `printf '[core]\\n\\tfsmonitor = "${touch}; false"\\n' >> tools2/.git/config && echo WROTE`;

  test("red team 6 F12j: tools/ swapped for a link to a decoy after the walk: nothing runs, the real .git is untouched", () => {
    const root = workspace(nested);
    const config = readFileSync(join(root, "tools/.git/config"), "utf8");
    // The walk (before the command) sees tools/.git, as it is.
    const spec = commandSandboxSpec(arm, root, opts, true, false);
    expect(spec.readOnly).toContain(join(root, "tools/.git"));
    // Then another session's command swaps it, as f12j2-race-two-sessions.sh does, before bwrap mounts.
    renameSync(join(root, "tools"), join(root, "tools2"));
    symlinkSync("decoy", join(root, "tools"));
    const r = Bun.spawnSync(bubblewrapArgs(spec, ["/bin/sh", "-c", arm], avail.program!), { cwd: root, env: { ...env } });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).not.toContain("WROTE");
    expect(out).toContain(`bunker did not run the command: ${join(root, "tools/.git")} was reached through a link (${join(root, "tools")}) when the sandbox was built.`);
    expect(r.exitCode).toBe(125);
    expect(readFileSync(join(root, "tools2/.git/config"), "utf8")).toBe(config);
    // Swapped back, the person's git runs nothing.
    Bun.spawnSync(["rm", join(root, "tools")]);
    renameSync(join(root, "tools2"), join(root, "tools"));
    hostGit(join(root, "tools"), "status");
    expect(existsSync(MARK)).toBe(false);
  });

  test("red team 6 F12j: tools/ renamed away after the walk (its .git no longer there to mount): nothing runs", () => {
    const root = workspace(nested);
    const config = readFileSync(join(root, "tools/.git/config"), "utf8");
    const spec = commandSandboxSpec(arm, root, opts, true, false);
    // Mid-swap, as bubblewrap's arguments are made: tools/ is tools2/ for a moment.
    renameSync(join(root, "tools"), join(root, "tools2"));
    const r = Bun.spawnSync(bubblewrapArgs(spec, ["/bin/sh", "-c", arm], avail.program!), { cwd: root, env: { ...env } });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).not.toContain("WROTE");
    expect(out).toContain(`bunker did not run the command: ${join(root, "tools/.git")} has no read-only mount of its own in the sandbox (it was not where the walk found it).`);
    expect(readFileSync(join(root, "tools2/.git/config"), "utf8")).toBe(config);
  });

  test("with nothing swapped the same command runs, and its .git is read-only", () => {
    const root = workspace(nested);
    const write = `printf x >> tools/.git/config || echo READ-ONLY`;
    const spec = commandSandboxSpec(write, root, opts, true, false);
    const r = Bun.spawnSync(bubblewrapArgs(spec, ["/bin/sh", "-c", write], avail.program!), { cwd: root, env: { ...env } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toBe("READ-ONLY\n");
  });
});
