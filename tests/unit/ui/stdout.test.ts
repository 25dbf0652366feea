// Headless output: a closed pipe or a full disk on stdout is caught, stops
// further writes and decides the exit code, never an uncaught crash.
import { expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { Stdout } from "../../../src/ui/stdout.ts";

test("what is written arrives, and flush reports no error", async () => {
  const sink = new PassThrough();
  const chunks: string[] = [];
  sink.on("data", (c) => chunks.push(String(c)));
  const out = new Stdout(sink);
  out.write("hello ");
  out.write("world\n");
  expect(await out.flush()).toBeUndefined();
  expect(chunks.join("")).toBe("hello world\n");
});

test("EPIPE (the reader went away): onClosed is called once, later writes are dropped, flush returns the error", async () => {
  let writes = 0;
  const broken = new Writable({
    write(_chunk, _enc, cb) {
      writes++;
      const e = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      cb(e);
    },
  });
  let closed = 0;
  const out = new Stdout(broken, () => closed++);
  out.write("first");
  const err = await out.flush();
  expect(err?.code).toBe("EPIPE");
  out.write("after");
  expect(closed).toBe(1);
  expect(writes).toBe(1);
});

test("another write error (a full disk) is reported by flush without calling onClosed", async () => {
  const full = new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error("no space left on device"), { code: "ENOSPC" }));
    },
  });
  let closed = 0;
  const out = new Stdout(full, () => closed++);
  out.write("x");
  expect((await out.flush())?.code).toBe("ENOSPC");
  expect(closed).toBe(0);
});
