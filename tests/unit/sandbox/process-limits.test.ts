// Process and memory limits for sandboxed commands (red team 7: a fork bomb or
// a 50 GB allocation took the machine down). Real runs in bubblewrap, as an
// unprivileged user (the kernel exempts root from the process limit) who has
// more processes outside the sandbox than the limit: only the sandbox's count.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { release } from "node:os";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { currentLimit, limitedArgv, nprocPerNamespace, prlimitProgram, processLimits } from "../../../src/sandbox/process-limits.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";
import { bwrapAsPerson } from "../../support/bwrap-as.ts";

const MiB = 1024 * 1024;
const LIMITS = `Limit                     Soft Limit           Hard Limit           Units     
Max data size             unlimited            unlimited            bytes     
Max processes             3000                 96365                processes 
`;

test("the limits: 2048 processes and 128 a CPU where the kernel counts them per user namespace (5.14+), half of memory per process", () => {
  expect(processLimits(2, 16 * 1024 * MiB, "6.8.0-45-generic")).toEqual({ processes: 2304, dataBytes: 8 * 1024 * MiB });
  expect(processLimits(16, 8 * 1024 * MiB, "5.14.0")).toEqual({ processes: 4096, dataBytes: 4 * 1024 * MiB });
  // Older kernels count all the person's processes (a browser's threads too): no process limit there.
  expect(processLimits(2, 1024 * MiB, "5.10.0-28-amd64").processes).toBeNull();
  expect([nprocPerNamespace("4.19.0"), nprocPerNamespace("5.13.9"), nprocPerNamespace("10.1.0"), nprocPerNamespace("junk")]).toEqual([false, false, true, false]);
});

test("prlimit's options never raise what bunker runs under: a lower soft limit the person set stays", () => {
  expect(currentLimit("Max processes", LIMITS)).toEqual({ soft: 3000, hard: 96365 });
  expect(currentLimit("Max data size", LIMITS)).toEqual({ soft: Infinity, hard: Infinity });
  expect(limitedArgv("/usr/bin/prlimit", { processes: 4096, dataBytes: 1000 }, ["bash", "-c", "x"], LIMITS)).toEqual(["/usr/bin/prlimit", "--nproc=3000:4096", "--data=1000:1000", "--", "bash", "-c", "x"]);
  expect(limitedArgv("/usr/bin/prlimit", { processes: null, dataBytes: 1000 }, ["true"], null)).toEqual(["/usr/bin/prlimit", "--data=1000:1000", "--", "true"]);
});

const canRun = detectSandbox().kind === "bubblewrap" && prlimitProgram() !== null && Bun.which("python3", { PATH: "/usr/bin:/bin" }) !== null && nprocPerNamespace(release());

describe.skipIf(!canRun)("in the real sandbox", () => {
  let base: string;
  beforeAll(() => {
    base = unseenDir("bunker-limits-");
    mkdirSync(join(base, "ws"));
    writeFileSync(join(base, "ws", "forks.py"), `import os, sys, time
kids = []
try:
    for i in range(int(sys.argv[1])):
        pid = os.fork()
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        kids.append(pid)
    print("forked", len(kids))
except OSError as e:
    print("fork failed after", len(kids), e.strerror)
for k in kids:
    os.kill(k, 9)
`);
    chmodSync(base, 0o755);
    chmodSync(join(base, "ws"), 0o777);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** A line in bubblewrap as bunker builds it, with these limits, run as the unprivileged person with `outside` processes of theirs running. */
  const limited = (line: string, limits: { processes: number; dataBytes: number }, outside = 0) =>
    bwrapAsPerson({ root: join(base, "ws"), allowNet: false, gitWritable: false, writable: [], limits }, ["/bin/sh", "-c", line], outside);

  test("a fork bomb stops at the process limit, counted inside the sandbox only (the person has more processes than that outside)", async () => {
    const out = await limited("python3 forks.py 500", { processes: 40, dataBytes: 1024 * MiB }, 60);
    // The shell and python count too; the person's 60 sleepers do not.
    expect(out).toMatch(/^fork failed after 3\d Resource temporarily unavailable\n$/);
  }, 30_000);

  test("an allocation past the memory limit fails in that process (MemoryError), the command goes on", async () => {
    const out = await limited("python3 -c 'bytearray(400 * 1024 * 1024)' 2>&1 | tail -1; python3 -c 'bytearray(50 * 1024 * 1024); print(\"50 MB fine\")'", { processes: 200, dataBytes: 256 * MiB });
    expect(out).toBe("MemoryError\n50 MB fine\n");
  }, 30_000);

  test("run_bash: every command runs under this machine's limits; bun starts and works under them", async () => {
    const home = join(base, "home");
    mkdirSync(home, { recursive: true });
    const l = processLimits();
    const out = await runAllowed(join(base, "ws"), "grep -E '^Max (processes|data size)' /proc/self/limits | tr -s ' '; bun -e 'console.log(new Uint8Array(64 * 1024 * 1024).fill(1).length)'", { env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" }, home });
    const nproc = Math.min(l.processes!, currentLimit("Max processes")!.hard);
    expect(out).toContain(`Max data size ${l.dataBytes} ${l.dataBytes} bytes`);
    expect(out).toContain(`Max processes ${Math.min(l.processes!, currentLimit("Max processes")!.soft)} ${nproc} processes`);
    expect(out).toContain("67108864");
  }, 30_000);
});
