import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { join } from "node:path";
import { sessionTmpFolder } from "../../../src/sandbox/session-tmp.ts";
import { tempDir } from "../../support/context.ts";

test("each session's folder is its own, made once with its tmp and var-tmp, and made again if removed meanwhile", () => {
  const a = sessionTmpFolder();
  const b = sessionTmpFolder();
  const dir = a();
  expect(existsSync(join(dir, "tmp"))).toBe(true);
  expect(existsSync(join(dir, "var-tmp"))).toBe(true);
  writeFileSync(join(dir, "tmp/out"), "x");
  expect(a()).toBe(dir);
  expect(existsSync(join(a(), "tmp/out"))).toBe(true);
  expect(b()).not.toBe(dir);
  rmSync(dir, { recursive: true });
  expect(existsSync(join(a(), "tmp"))).toBe(true);
});

test.skipIf(detectSandbox().kind !== "bubblewrap")("in bubblewrap: a line that only reads sees the session's /tmp read-only, even with its workspace inside /tmp (the mount point made first)", () => {
  const dir = sessionTmpFolder()();
  writeFileSync(join(dir, "tmp/out"), "built\n");
  const root = mkdtempSync("/tmp/bunker-ro-tmp-ws-");
  try {
    const argv = bubblewrapArgs({ root, allowNet: false, gitWritable: false, writable: [], workspaceReadOnly: true, sessionTmp: { dir, readOnly: true } }, ["sh", "-c", `cat /tmp/out; echo x > /tmp/new; ls -d ${root}`]);
    const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).toContain("built");
    expect(out).toContain("Read-only file system");
    expect(out).toContain(root);
    expect(existsSync(join(dir, "tmp/new"))).toBe(false);
    // A command that may write: the same folder, writable.
    const w = Bun.spawnSync(bubblewrapArgs({ root, allowNet: false, gitWritable: false, writable: [], sessionTmp: { dir, readOnly: false } }, ["sh", "-c", "echo x > /tmp/new"]));
    expect(w.exitCode).toBe(0);
    expect(existsSync(join(dir, "tmp/new"))).toBe(true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.skipIf(!(process.getuid?.() === 0 && Bun.which("setpriv") && Bun.which("du")))("a folder a command closed to its owner (chmod 000) is still measured: its bytes are not left out (reviewer's R13-12)", () => {
  const dir = tempDir("bunker-session-tmp-du-");
  chmodSync(dir, 0o777);
  const script = `
    const { mkdirSync, writeFileSync, chmodSync } = require("node:fs");
    const { diskUse } = require(${JSON.stringify(`${import.meta.dir}/../../../src/sandbox/session-tmp.ts`)});
    const d = ${JSON.stringify(dir)} + "/s";
    mkdirSync(d + "/tmp/x", { recursive: true }); writeFileSync(d + "/tmp/x/big", Buffer.alloc(5 * 1024 * 1024, 1)); chmodSync(d + "/tmp/x", 0);
    diskUse(Bun.which("du"), d).then((n) => console.log(n));`;
  const r = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: dir } });
  expect(Number(r.stdout.toString().trim())).toBeGreaterThanOrEqual(5 * 1024 * 1024);
});
