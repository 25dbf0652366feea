// The build's pieces that a release depends on: checksums that standard tools
// accept, the embedded stamp, and a clear error when a build fails.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeChecksums } from "../../scripts/build/checksums.ts";
import { compile } from "../../scripts/build/compile.ts";
import { ROOT } from "../../scripts/build/fresh.ts";
import { readStamp } from "../../scripts/build/stamp.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bunker-build-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.skipIf(!Bun.which("sha256sum"))("SHA256SUMS is accepted by sha256sum -c, and catches a changed file", async () => {
  writeFileSync(join(dir, "bunker-linux-x64"), "one");
  writeFileSync(join(dir, "bunker-windows-x64.exe"), "two");
  const text = await writeChecksums(dir, ["bunker-linux-x64", "bunker-windows-x64.exe"]);
  expect(text.split("\n").filter(Boolean)).toHaveLength(2);
  const ok = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: dir });
  expect(ok.stdout.toString()).toBe("bunker-linux-x64: OK\nbunker-windows-x64.exe: OK\n");
  writeFileSync(join(dir, "bunker-linux-x64"), "changed");
  expect(Bun.spawnSync(["sha256sum", "-c", "--quiet", "SHA256SUMS"], { cwd: dir }).exitCode).not.toBe(0);
});

test("the stamp is package.json's version and the current git commit", () => {
  const stamp = readStamp(ROOT);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  expect(stamp.version).toBe(pkg.version);
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  expect(head.startsWith(stamp.commit.replace(/-dirty$/, ""))).toBe(true);
});

test("a failed build says why and leaves the old binary alone", async () => {
  const entry = join(dir, "broken.ts");
  writeFileSync(entry, `import { nothing } from "./missing-module.ts";\nconsole.log(nothing);\n`);
  const outfile = join(dir, "out", "bunker");
  writeFileSync(join(dir, "ok.ts"), `console.log(typeof BUNKER_VERSION === "string" ? BUNKER_VERSION : "none");\n`);
  await compile({ entry: join(dir, "ok.ts"), outfile, stamp: { version: "1.2.3", commit: "c0ffee" }, bytecode: true, cwd: dir });
  const before = readFileSync(outfile);
  const err = await compile({ entry, outfile, stamp: { version: "1.2.3", commit: "c0ffee" }, bytecode: true, cwd: dir })
    .then(() => undefined, (e: unknown) => e as Error);
  expect(err?.message).toContain("bun build for this machine failed");
  expect(err?.message).toContain("missing-module");
  expect(readFileSync(outfile).equals(before)).toBe(true);
  expect(readdirSync(join(dir, "out"))).toEqual(["bunker"]);
  // The define reached the code.
  expect(Bun.spawnSync([outfile], { env: {} }).stdout.toString()).toBe("1.2.3\n");
});

test("top-level await compiles with --bytecode (ESM chunks)", async () => {
  const entry = join(dir, "tla.ts");
  writeFileSync(entry, `const v = await Promise.resolve("awaited");\nconsole.log(v);\n`);
  const outfile = join(dir, "tla-out", "tla");
  await compile({ entry, outfile, stamp: { version: "1.2.3", commit: "c0ffee" }, bytecode: true, cwd: dir });
  expect(Bun.spawnSync([outfile], { env: {} }).stdout.toString()).toBe("awaited\n");
});
