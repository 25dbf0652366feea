// The sandbox's in-memory folders have sizes (red team 7: a command could fill
// the machine's memory through /tmp). Real runs in bubblewrap: writing past a
// size fails with ENOSPC inside while the host carries on, bwrap's own root and
// /dev take nothing, and run_bash's result says what happened.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgs, probeBubblewrap } from "../../../src/sandbox/bubblewrap.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { memoryNote, spaceNote } from "../../../src/sandbox/explain.ts";
import { shownSize, tmpfsSizes } from "../../../src/sandbox/tmpfs-sizes.ts";
import { runAllowed } from "../../support/confined.ts";
import { tempDir, unseenDir } from "../../support/context.ts";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

test("sizes: /tmp and the home a fifth of memory, /var/tmp and /dev/shm a twentieth, /run 16 MiB; half of memory in all", () => {
  expect(tmpfsSizes(16 * GiB)).toEqual({ tmp: 3276 * MiB, home: 3276 * MiB, varTmp: 819 * MiB, shm: 819 * MiB, run: 16 * MiB });
  const s = tmpfsSizes(8 * GiB);
  expect(s.tmp + s.home + s.varTmp + s.shm).toBeLessThanOrEqual(4 * GiB);
  expect(tmpfsSizes(2 * MiB).varTmp).toBe(MiB);
  expect([shownSize(3276 * MiB), shownSize(819 * MiB), shownSize(16 * MiB), shownSize(4 * GiB)]).toEqual(["3.2 GB", "819 MB", "16 MB", "4 GB"]);
});

test("the note for a failed allocation names the per-process limit; none for other failures or on macOS (the new user: java -Xms13g, bytearray)", () => {
  const spec = { root: "/w", allowNet: false, gitWritable: false, writable: [], limits: { processes: 100, dataBytes: 8 * 1024 ** 3 } };
  for (const said of ["MemoryError", "Error occurred during initialization of VM\nCould not reserve enough space for object heap: insufficient memory", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", "memory allocation of 17179869184 bytes failed"]) {
    expect(memoryNote(said, spec, "linux")).toBe(`An allocation failed. bunker limits each sandboxed process to ${shownSize(8 * 1024 ** 3)} of memory (half of this machine's), so that one command cannot take it all; the person can run a command that needs more themselves. Do not retry as it is.`);
  }
  expect(memoryNote("error: cannot find module", spec, "linux")).toBeNull();
  expect(memoryNote("MemoryError", spec, "darwin")).toBeNull();
});

test("the note for a full in-memory folder names each size and where large files go; none on macOS or for other failures", () => {
  const spec = { root: "/w", allowNet: false, gitWritable: false, writable: [], home: "/home/u", memoryBytes: 16 * GiB };
  expect(spaceNote("head: error writing 'standard output': No space left on device", spec, "linux")).toBe(
    "A write ran out of space. The sandbox's private /tmp (3.2 GB), the home (3.2 GB), /var/tmp (819 MB), /dev/shm (819 MB) and /run (16 MB) are held in this machine's memory and limited, so that a command cannot fill it; " +
      "the workspace is on disk: put large files there (a build's temporary files with TMPDIR=$PWD/.tmp, a cache with XDG_CACHE_HOME=$PWD/.cache). Do not retry as it is.",
  );
  expect(spaceNote("No space left on device", spec, "darwin")).toBeNull();
  expect(spaceNote("Permission denied", spec, "linux")).toBeNull();
});

const bubblewrap = detectSandbox().kind === "bubblewrap";

describe.skipIf(!bubblewrap)("in the real sandbox", () => {
  let base: string;
  beforeAll(() => {
    base = unseenDir("bunker-tmpfs-");
    mkdirSync(join(base, "ws"));
    mkdirSync(join(base, "home"));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** A shell line in bubblewrap as bunker builds it, for a machine with 64 MiB of memory (a /tmp of 12 MiB). */
  function small(line: string): { code: number; out: string } {
    const home = join(base, "home");
    const argv = bubblewrapArgs({ root: join(base, "ws"), allowNet: false, gitWritable: false, writable: [], home, memoryBytes: 64 * MiB }, ["sh", "-c", line]);
    const r = Bun.spawnSync(argv, { env: { HOME: home, PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    return { code: r.exitCode ?? -1, out: r.stdout.toString() + r.stderr.toString() };
  }

  test("writing past /tmp's size fails with ENOSPC at that size; the same for the home, /var/tmp and /dev/shm", () => {
    const fill = (dir: string) => `head -c 40000000 /dev/zero > ${dir}/big; echo "exit $?"; wc -c < ${dir}/big`;
    const s = tmpfsSizes(64 * MiB);
    for (const [dir, size] of [["/tmp", s.tmp], ["$HOME", s.home], ["/var/tmp", s.varTmp], ["/dev/shm", s.shm]] as const) {
      const r = small(fill(dir));
      expect(r.out).toContain("No space left on device");
      expect(r.out).toContain("exit 1");
      expect(r.out).toContain(`\n${size}\n`);
    }
  });

  test("bwrap's own root and /dev take nothing (read-only); the devices still work", () => {
    const r = small("echo x > /newfile; echo x > /dev/newfile; echo to-null > /dev/null && echo null-ok; echo small > /tmp/f && cat /tmp/f");
    expect(r.out).toContain("cannot create /newfile: Read-only file system");
    expect(r.out).toContain("cannot create /dev/newfile: Read-only file system");
    expect(r.out).toContain("null-ok\nsmall\n");
  });

  test("run_bash: the command sees ENOSPC, and the result says the folder is in memory, its size, and where large files go", async () => {
    const home = join(base, "home");
    const s = tmpfsSizes();
    // /tmp and /var/tmp are the session's, on disk (session-tmp.ts): not among the in-memory folders.
    const out = await runAllowed(join(base, "ws"), "df -B1 --output=size $HOME /dev/shm /run | tail -n +2 | tr -s ' \\n' ' '; head -c 20000000 /dev/zero > /run/big", { env: { HOME: home, PATH: "/usr/bin:/bin" }, home });
    expect(out).toStartWith(`exit code 1\n\n${s.home} ${s.shm} ${s.run} head: error writing 'standard output': No space left on device`);
    expect(out).toContain(`note: A write ran out of space. The sandbox's private home (${shownSize(s.home)}), /dev/shm (${shownSize(s.shm)}) and /run (${shownSize(s.run)})`);
  });
});

test.skipIf(!bubblewrap)("a bwrap without --size (before 0.8) still confines, with unsized folders, rather than failing every command", () => {
  const old = join(tempDir("bunker-old-bwrap-"), "bwrap");
  writeFileSync(old, `#!/bin/sh\nfor a; do [ "$a" = --size ] && { echo "bwrap: Unknown option --size" >&2; exit 1; }; done\nexec ${detectSandbox().program} "$@"\n`);
  chmodSync(old, 0o755);
  expect(probeBubblewrap(old)).toEqual({ ok: true });
  const argv = bubblewrapArgs({ root: "/srv", allowNet: false, gitWritable: false, writable: [] }, ["sh", "-c", "echo inside > /tmp/f && cat /tmp/f"], old);
  expect(argv).not.toContain("--size");
  expect(Bun.spawnSync(argv).stdout.toString()).toBe("inside\n");
  // The real one takes --size.
  expect(bubblewrapArgs({ root: "/srv", allowNet: false, gitWritable: false, writable: [] }, ["true"], detectSandbox().program!)).toContain("--size");
});
