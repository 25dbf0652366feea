import { expect, test } from "bun:test";
import { canRefuseUnixSockets, NO_UNIX_SUBCOMMAND, unixSocketFilter } from "../../../src/sandbox/no-unix-sockets.ts";
import { selfCommand } from "../../../src/self-command.ts";

// What a program under the filter can and cannot make (python's own calls, the kernel's answers).
const probe = [
  "import ctypes, errno, socket",
  "try: socket.socket(socket.AF_UNIX); print('unix made')",
  "except OSError as e: print('unix', errno.errorcode[e.errno])",
  "a, b = socket.socketpair(); a.send(b'x'); print('pair', b.recv(1).decode())",
  "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK); print('stream pair made')",
  // An end of a datagram or packet pair sends to any datagram socket by its path (red team 10 F05).
  "for t in ('SOCK_DGRAM', 'SOCK_SEQPACKET'):",
  "    try: socket.socketpair(socket.AF_UNIX, getattr(socket, t)); print(t, 'pair made')",
  "    except OSError as e: print(t, 'pair', errno.errorcode[e.errno])",
  "socket.socket(socket.AF_INET); print('inet made')",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "r = libc.syscall(425, 8, ctypes.create_string_buffer(120)); print('io_uring', r, errno.errorcode.get(ctypes.get_errno()))",
  // Tracing another process to have it make a socket, or taking its socket: PTRACE_ATTACH, pidfd_getfd (a child of
  // its own here, which nothing else would stop it from tracing).
  "import os, signal, time; pid = os.fork()",
  "if pid == 0: time.sleep(30); os._exit(0)",
  "r = libc.ptrace(16, pid, 0, 0); print('ptrace', r, errno.errorcode.get(ctypes.get_errno()))",
  "r = libc.syscall(438, os.pidfd_open(pid), 0, 0); print('pidfd_getfd', r, errno.errorcode.get(ctypes.get_errno()))",
  "os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)",
].join("\n");

test.skipIf(!canRefuseUnixSockets())("under the filter a program cannot make a Unix socket, a datagram or packet socketpair() or an io_uring, but has stream socketpair() and other sockets; its exit status is its own", () => {
  const r = Bun.spawnSync([...selfCommand(NO_UNIX_SUBCOMMAND), "--", "python3", "-c", `${probe}\nraise SystemExit(7)`], { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString()).toBe("unix EACCES\npair x\nstream pair made\nSOCK_DGRAM pair EACCES\nSOCK_SEQPACKET pair EACCES\ninet made\nio_uring -1 ENOSYS\nptrace -1 EPERM\npidfd_getfd -1 EPERM\n");
  expect(r.exitCode).toBe(7);
  // Without it, the same program makes both (the lines above are the filter's doing).
  const free = Bun.spawnSync(["python3", "-c", probe], { stdout: "pipe" }).stdout.toString();
  expect(free).toContain("unix made");
  expect(free).toContain("SOCK_DGRAM pair made");
  expect(free).not.toContain("io_uring -1 ENOSYS");
  expect(free).toContain("ptrace 0 None");
});

test("started without a program, or with one that is not there, it says so and runs nothing", () => {
  const bare = Bun.spawnSync([...selfCommand(NO_UNIX_SUBCOMMAND)], { stdout: "pipe", stderr: "pipe" });
  expect(bare.exitCode).toBe(126);
  expect(bare.stderr.toString()).toContain("usage: -- PROGRAM ARGS…; the program was not started");
  if (!canRefuseUnixSockets()) return;
  const missing = Bun.spawnSync([...selfCommand(NO_UNIX_SUBCOMMAND), "--", "no-such-program-x"], { stdout: "pipe", stderr: "pipe" });
  expect(missing.exitCode).toBe(126);
  expect(missing.stderr.toString()).toContain("no-such-program-x was not found");
});

test("the filter is whole instructions, ends in its four answers, and is as long on each architecture", () => {
  const x64 = unixSocketFilter("x64");
  const arm = unixSocketFilter("arm64");
  expect(x64.length % 8).toBe(0);
  expect(x64.length).toBe(arm.length);
  const ret = (f: Uint8Array, i: number) => new DataView(f.buffer).getUint32(f.length - 8 * (4 - i) + 4, true);
  expect([0, 1, 2, 3].map((i) => ret(x64, i))).toEqual([0x7fff0000, 0x0005000d, 0x00050001, 0x00050026]);
  expect(() => unixSocketFilter("ia32")).toThrow("no seccomp filter for ia32");
});
