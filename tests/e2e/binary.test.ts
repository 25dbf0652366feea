// The compiled binary stands alone: copied by itself into a temp dir outside
// the repo and run with no environment at all (as `env -i`) and an empty
// PATH, so no Node, no Bun and nothing of the build tree can be found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshBinary, ROOT } from "../../scripts/build/fresh.ts";
import { writeChecksums } from "../../scripts/build/checksums.ts";
import type { Stamp } from "../../scripts/build/stamp.ts";
import { RELEASE_TARGETS, runsOnHost } from "../../scripts/build/targets.ts";

const strace = Bun.which("strace");

let dir: string;
let bin: string;
let stamp: Stamp;

async function runAlone(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // Bun.spawn's env replaces the whole environment: the child sees only PATH="".
  const proc = Bun.spawn(argv, { cwd: dir, env: { PATH: "" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe("the compiled binary (src/main.ts)", () => {
  beforeAll(async () => {
    const built = await freshBinary();
    stamp = built.stamp;
    dir = mkdtempSync(join(tmpdir(), "bunker-alone-"));
    bin = join(dir, "bunker");
    copyFileSync(built.path, bin);
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("runs from a temp dir outside the repo", () => {
    expect(dir.startsWith(ROOT)).toBe(false);
  });

  test("--version prints the embedded version and commit with no environment and an empty PATH", async () => {
    const r = await runAlone([bin, "--version"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(stamp.version).toBe(pkg.version);
    expect(r.stdout).toContain(pkg.version);
    expect(r.stdout).toContain(stamp.commit);
    expect(stamp.commit).not.toBe("unknown");
  });

  test("carries no path of the build tree", async () => {
    const bytes = await Bun.file(bin).bytes();
    expect(Buffer.from(bytes).includes(ROOT)).toBe(false);
  });

  test.skipIf(!strace)("opens no file of the build tree or of a project config at run time (strace)", async () => {
    const log = join(dir, "strace.log");
    const r = await runAlone([strace!, "-f", "-qq", "-e", "trace=%file", "-o", log, bin, "--version"]);
    expect(r.code).toBe(0);
    const touched = [...readFileSync(log, "utf8").matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(touched.length).toBeGreaterThan(0);
    const suspicious = touched.filter((p) =>
      p.startsWith(ROOT) || /node_modules|package\.json|bunfig\.toml|tsconfig\.json|(^|\/)\.env$/.test(p));
    expect(suspicious).toEqual([]);
  });

  test("install.sh from a local release installs a bunker that runs", async () => {
    const target = RELEASE_TARGETS.find(runsOnHost);
    if (!target) throw new Error(`no release target for ${process.platform}-${process.arch}`);
    const release = join(dir, "release");
    mkdirSync(release);
    symlinkSync(bin, join(release, target.file));
    await writeChecksums(release, [target.file]);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const name = new URL(req.url).pathname.slice(1);
        return name === target.file || name === "SHA256SUMS"
          ? new Response(Bun.file(join(release, name)))
          : new Response("Not Found", { status: 404 });
      },
    });
    try {
      const home = join(dir, "home");
      mkdirSync(home);
      const proc = Bun.spawn(["/bin/sh", join(ROOT, "scripts/install.sh")], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, BUNKER_RELEASE_URL: `http://127.0.0.1:${server.port}` },
        stdin: "ignore", stdout: "pipe", stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited,
      ]);
      expect(err).toBe("");
      expect(code).toBe(0);
      const installed = join(home, ".local/bin/bunker");
      expect(out).toContain(`Installed ${installed}`);
      const r = await runAlone([installed, "--version"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(stamp.commit);
    } finally {
      server.stop(true);
    }
  });
});
