// An MCP server runs for the whole session, and its sockets are masked once,
// when it starts (sockets.ts): a database, tmux or X11 socket that appears
// later where it can see (the person starts the project's Postgres with its
// socket in the workspace) would be reachable to it (red team 9's F04:
// `COPY … TO PROGRAM` on the host). No mount can be added to a running
// sandbox, so the wall is the kernel's: the server runs under a seccomp filter
// that refuses to make a Unix socket (socket(AF_UNIX) fails with EACCES, as a
// masked one does), wherever and whenever one appears. socketpair() stays for
// streams (runtimes talk to their own children through it; a connected stream
// reaches no path), not for datagrams or packets: an end of a datagram pair
// sends to any datagram socket by its path (red team 10's F05: a dev tool's
// control socket made after the server started ran what it was sent), and
// io_uring is refused,
// since it makes and connects sockets without the socket() system call. Landlock
// ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX) would allow a server its own sockets;
// this kernel's does not have it, so no server may make one. Nor may it have
// another process make one for it: tracing calls are refused too, nothing
// unfiltered runs beside it (no reaper of bubblewrap's: --as-pid-1), and the
// forwarder in front of a networked server makes itself untraceable (red team
// 9's F12). Every process under the filter is the server's equal, so the one
// that reaps what a long-lived server leaves behind is one of them: after the
// filter, a child subreaper /bin/sh starts the server and waits, and its own
// wait collects every orphan the server's children leave (a pid 1 that never
// waits, as the server was, piled them up as zombies).
//   `bunker __no-unix-sockets -- PROGRAM ARGS…` sets the filter and becomes that shell, PROGRAM its child.
import { ptr } from "bun:ffi";
import { openLibc } from "./landlock.ts";
import { execInPlace, programPath } from "./exec-in-place.ts";

export const NO_UNIX_SUBCOMMAND = "__no-unix-sockets";

const PR_SET_NO_NEW_PRIVS = 38;
const PR_SET_SECCOMP = 22;
const PR_SET_CHILD_SUBREAPER = 36;
const SECCOMP_MODE_FILTER = 2;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EACCES = 13;
const EPERM = 1;
const ENOSYS = 38;
const AF_UNIX = 1;
// BPF: load a word of seccomp_data, compare, return.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const AND_K = 0x54;
/** socketpair()'s type, its low bits (SOCK_NONBLOCK and SOCK_CLOEXEC are above): the one let through. */
const SOCK_STREAM = 1;
const SOCK_TYPE_MASK = 0xf;
const RET_K = 0x06;

/** socket()'s number and the audit architecture, for the architectures bunker ships for. */
const ARCHES: Partial<Record<string, { audit: number; socket: number; socketpair: number; tracing: number[] }>> = {
  // tracing: ptrace, process_vm_readv, process_vm_writev, pidfd_getfd (another process made to make a socket, or
  // its socket taken: red team 9's F12).
  x64: { audit: 0xc000003e, socket: 41, socketpair: 53, tracing: [101, 310, 311, 438] },
  arm64: { audit: 0xc00000b7, socket: 198, socketpair: 199, tracing: [117, 270, 271, 438] },
};
// Refused with ENOSYS: io_uring_setup, io_uring_enter, io_uring_register (the same numbers on every architecture).
const IO_URING = [425, 426, 427];

/** Whether the filter can be set on this architecture. */
export function canRefuseUnixSockets(arch = process.arch): boolean {
  return process.platform === "linux" && ARCHES[arch] !== undefined;
}

/** The filter as the kernel reads it (struct sock_filter[]): 8 bytes an instruction, little-endian. */
export function unixSocketFilter(arch = process.arch): Uint8Array {
  const a = ARCHES[arch];
  if (!a) throw new Error(`no seccomp filter for ${arch}`);
  // Instructions: 4 before the lists, one per listed call, 2 for socket()'s domain, 4 for socketpair()'s type, then
  // ALLOW, EACCES, EPERM, ENOSYS.
  const ENOSYS_AT = 4 + IO_URING.length + a.tracing.length + 1 + 2 + 4 + 3;
  const EPERM_AT = ENOSYS_AT - 1;
  const EACCES_AT = ENOSYS_AT - 2;
  const ALLOW_AT = ENOSYS_AT - 3;
  const prog: [number, number, number, number][] = [];
  const to = (target: number) => target - (prog.length + 1); // a jump's offset from the instruction being added
  prog.push([LD_W_ABS, 0, 0, 4]); // arch
  prog.push([JEQ_K, 0, to(ENOSYS_AT), a.audit]); // another architecture's calls (i386's socketcall): refused
  prog.push([LD_W_ABS, 0, 0, 0]); // the call's number
  prog.push([JGE_K, to(ENOSYS_AT), 0, 0x40000000]); // x32's numbers
  for (const nr of IO_URING) prog.push([JEQ_K, to(ENOSYS_AT), 0, nr]);
  for (const nr of a.tracing) prog.push([JEQ_K, to(EPERM_AT), 0, nr]);
  const PAIR_AT = prog.length + 4;
  prog.push([JEQ_K, 0, to(PAIR_AT - 1), a.socket]);
  prog.push([LD_W_ABS, 0, 0, 16]); // socket()'s domain: the low word of its first argument
  prog.push([JEQ_K, to(EACCES_AT), to(ALLOW_AT), AF_UNIX]);
  prog.push([JEQ_K, 0, to(ALLOW_AT), a.socketpair]);
  if (prog.length !== PAIR_AT) throw new Error("seccomp filter miscounted");
  prog.push([LD_W_ABS, 0, 0, 24]); // socketpair()'s type: the low word of its second argument
  prog.push([AND_K, 0, 0, SOCK_TYPE_MASK]);
  prog.push([JEQ_K, to(ALLOW_AT), to(EACCES_AT), SOCK_STREAM]);
  prog.push([RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  prog.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EACCES]);
  prog.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  prog.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]);
  if (prog.length !== ENOSYS_AT + 1) throw new Error("seccomp filter miscounted");
  const out = new Uint8Array(prog.length * 8);
  const view = new DataView(out.buffer);
  prog.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return out;
}

/**
 * The reaper: the server as a background child, its standard input kept (a shell without job control gives one
 * /dev/null, before any `<&0`), then `wait` for it: the shell's exit status is the server's (128+n for a signal),
 * and while it waits it collects any child that ends, the orphans it adopts as a subreaper included.
 */
export const REAPER_SHELL = "/bin/sh";
export const REAPER_SCRIPT = 'exec 3<&0; "$@" <&3 3<&- & wait $!';

/** The subcommand: set the filter, then become the reaping shell that runs PROGRAM. Never runs PROGRAM without it: the reason is said, status 126. */
export function runWithoutUnixSockets(args: string[]): number {
  const fail = (why: string): number => {
    process.stderr.write(`bunker ${NO_UNIX_SUBCOMMAND}: ${why}; the program was not started\n`);
    return 126;
  };
  const [sep, ...argv] = args;
  if (sep !== "--" || argv.length === 0) return fail("usage: -- PROGRAM ARGS…");
  if (!canRefuseUnixSockets()) return fail(`no seccomp filter for ${process.platform}/${process.arch}`);
  const libc = openLibc();
  if (!libc) return fail("no C library to reach seccomp through");
  const filter = unixSocketFilter();
  // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
  const fprog = new BigUint64Array(2);
  new DataView(fprog.buffer).setUint16(0, filter.length / 8, true);
  fprog[1] = BigInt(ptr(filter));
  if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) return fail("prctl(PR_SET_NO_NEW_PRIVS) failed");
  if (libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, BigInt(ptr(fprog)), 0, 0) !== 0) return fail("the kernel refused the seccomp filter");
  const program = programPath(argv[0]!);
  if (!program) return fail(`${argv[0]} was not found`);
  // Without a shell (or a kernel that refuses a subreaper) the server runs as before, its orphans unreaped.
  if (libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0 || !Bun.which(REAPER_SHELL)) return execInPlace([program, ...argv.slice(1)], fail);
  return execInPlace([REAPER_SHELL, "-c", REAPER_SCRIPT, "bunker-reaper", program, ...argv.slice(1)], fail);
}
