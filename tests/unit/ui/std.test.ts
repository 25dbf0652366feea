// stdout and stderr without Node's stream objects, written as a child
// process's reader sees them: a pipe, a file, a closed pipe, a full disk.
import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync } from "node:fs";
import { isatty } from "node:tty";
import { join } from "node:path";
import { FdSink } from "../../../src/ui/std.ts";
import { tempDir } from "../../support/context.ts";

const STD = join(import.meta.dir, "../../../src/ui/std.ts");

/** Runs `code` in a child bun with `FdSink` imported; its stdout a pipe unless an fd is given. */
function child(code: string, stdoutFd?: number) {
  const script = `import { FdSink } from ${JSON.stringify(STD)};\n${code}`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdin: "ignore", stdout: stdoutFd ?? "pipe", stderr: "pipe" });
  return { proc, stdout: proc.stdout as ReadableStream<Uint8Array>, stderr: proc.stderr };
}

test("what is written arrives whole and in order, a megabyte through a pipe read as it comes, multi-byte text included", async () => {
  const { proc, stdout, stderr } = child(`const out = new FdSink(1); for (let i = 0; i < 4096; i++) out.write("line " + i + " é€😀 " + "x".repeat(200) + "\\n"); new FdSink(2).write("done\\n");`);
  const [out, err] = await Promise.all([new Response(stdout).text(), new Response(stderr).text()]);
  expect(await proc.exited).toBe(0);
  const lines = out.split("\n");
  expect(lines).toHaveLength(4097);
  expect(lines[4095]).toBe(`line 4095 é€😀 ${"x".repeat(200)}`);
  expect(lines.every((l, i) => i === 4096 || l.startsWith(`line ${i} `))).toBe(true);
  expect(err).toBe("done\n");
});

test("a write into a file lands there; done is told of success", async () => {
  const file = join(tempDir("bunker-std-"), "out.txt");
  const fd = openSync(file, "w");
  const { proc, stderr } = child(`new FdSink(1).write("to a file\\n", (e) => new FdSink(2).write(String(e)));`, fd);
  const err = await new Response(stderr).text();
  closeSync(fd);
  expect(await proc.exited).toBe(0);
  expect(readFileSync(file, "utf8")).toBe("to a file\n");
  expect(err).toBe("null");
});

test("a full disk (/dev/full) and a closed pipe are reported to done with their code, never thrown", async () => {
  const full = openSync("/dev/full", "w");
  const { proc, stderr } = child(`new FdSink(1).write("x", (e) => new FdSink(2).write(String(e?.code)));`, full);
  expect(await new Response(stderr).text()).toBe("ENOSPC");
  closeSync(full);
  expect(await proc.exited).toBe(0);

  // The reader of stdout is gone before the write.
  const gone = child(`await Bun.sleep(200); new FdSink(1).write("x", (e) => new FdSink(2).write(String(e?.code)));`);
  await gone.stdout.cancel();
  expect(await new Response(gone.stderr).text()).toBe("EPIPE");
  expect(await gone.proc.exited).toBe(0);
});

test("an FdSink reads its terminal state from the fd it writes", () => {
  expect(new FdSink(1).isTTY).toBe(isatty(1));
  expect(new FdSink(2).isTTY).toBe(isatty(2));
});
