// Abstract Unix sockets (X11's @/tmp/.X11-unix/X0, a D-Bus bus at
// unix:abstract=…, containerd-shim's) belong to a network namespace, not to
// the file system: a sandbox that shares the machine's network (bare
// --allow-net) reaches every one of them, whatever it mounts. Landlock's
// LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (ABI 6, Linux 6.12) makes a domain
// that may not connect to one created outside it; the command's own (a
// server it starts) stay reachable. A domain is set on one thread (with
// no_new_privs) and passed to what it executes, so bunker's own binary is
// the wrapper: `bunker __scope-abstract -- PROGRAM ARGS…` enters a domain
// and execve's PROGRAM (bwrap) in place, nothing else in bunker changes.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { selfCommand } from "../self-command.ts";

export const SCOPE_SUBCOMMAND = "__scope-abstract";
/** The first Landlock ABI with LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET. */
export const ABSTRACT_SCOPE_ABI = 6;

// The same numbers on every Linux architecture (added after the syscall tables were unified).
const SYS_LANDLOCK_CREATE_RULESET = 444;
const SYS_LANDLOCK_RESTRICT_SELF = 446;
const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1n;
const PR_SET_NO_NEW_PRIVS = 38;

const LIBC = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

/** The C library's syscall, prctl and execve, through bun:ffi (null: none of the known ones could be opened). */
export function openLibc() {
  for (const name of LIBC) {
    try {
      return dlopen(name, {
        syscall: { args: [FFIType.i64, FFIType.i64, FFIType.u64, FFIType.u32], returns: FFIType.i64 },
        prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
        execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
        fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      }).symbols;
    } catch {
      // not this C library
    }
  }
  return null;
}

let abi: number | undefined;

/** The kernel's Landlock ABI version (0: not Linux, Landlock not built in or disabled, or no C library to ask through). */
export function landlockAbi(): number {
  if (abi !== undefined) return abi;
  if (process.platform !== "linux") return (abi = 0);
  const libc = openLibc();
  const v = libc ? Number(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, 0, 0, LANDLOCK_CREATE_RULESET_VERSION)) : -1;
  return (abi = v > 0 ? v : 0);
}

/** Whether commands can be kept from the machine's abstract sockets here. */
export function canScopeAbstractSockets(): boolean {
  return landlockAbi() >= ABSTRACT_SCOPE_ABI;
}

/**
 * The one line said at start when commands and MCP servers share the machine's network (bare --allow-net, in bubblewrap) on a kernel
 * whose Landlock cannot scope abstract sockets, or null.
 */
export function abstractSocketsNotice(abi = landlockAbi()): string | null {
  if (abi >= ABSTRACT_SCOPE_ABI) return null;
  const has = abi > 0 ? `ABI ${abi}` : "no Landlock";
  return `Bare --allow-net shares this machine's network with commands and MCP servers, and this kernel's Landlock (${has}; ${ABSTRACT_SCOPE_ABI} is needed, Linux 6.12) cannot keep them from its abstract Unix sockets (an X11 display, a session bus): they can reach those. Grant hosts by name (--allow-net=HOST, and a server's "net" list) to give them a network of their own.`;
}

/** `argv` (bwrap's command line) run inside a Landlock domain that reaches no abstract socket made outside it. */
export function scopedArgv(argv: string[]): string[] {
  return [...selfCommand(SCOPE_SUBCOMMAND), "--", ...argv];
}

/**
 * A scopedArgv that hands descriptor `fd` on to the program: Bun marks an inherited descriptor above 3 close-on-exec
 * when it starts, so the wrapper clears that mark before it becomes the program (bwrap's status report: bubblewrap.ts).
 * `argv` unchanged when it is not a scopedArgv.
 */
export function keepingFd(argv: readonly string[], fd: number): string[] {
  const at = argv.indexOf(SCOPE_SUBCOMMAND);
  if (at === -1) return [...argv];
  return [...argv.slice(0, at + 1), KEEP_FD, String(fd), ...argv.slice(at + 1)];
}

const KEEP_FD = "--keep-fd";
const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

/** A NUL-terminated copy of `s`, and the array of pointers execve takes (kept alive by the caller). */
function cStrings(list: string[]): { bufs: Buffer[]; array: BigUint64Array } {
  const bufs = list.map((s) => Buffer.from(`${s}\0`));
  const array = new BigUint64Array(bufs.length + 1);
  bufs.forEach((b, i) => (array[i] = BigInt(ptr(b))));
  return { bufs, array };
}

/**
 * The subcommand: enter the domain, then become PROGRAM (same pid, so the
 * caller's process group and signals hold). It never runs PROGRAM outside
 * the domain: any failure is said and the exit status is 126.
 */
export function runScoped(args: string[]): number {
  const fail = (why: string): number => {
    process.stderr.write(`bunker ${SCOPE_SUBCOMMAND}: ${why}; the command was not run\n`);
    return 126;
  };
  const keep: number[] = [];
  while (args[0] === KEEP_FD && /^\d+$/.test(args[1] ?? "")) {
    keep.push(Number(args[1]));
    args = args.slice(2);
  }
  const [sep, ...argv] = args;
  if (sep !== "--" || argv.length === 0 || !argv[0]!.startsWith("/")) return fail("usage: -- /ABSOLUTE/PROGRAM ARGS…");
  const libc = process.platform === "linux" ? openLibc() : null;
  if (!libc) return fail("no C library to reach Landlock through");
  if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) return fail("prctl(PR_SET_NO_NEW_PRIVS) failed");
  // struct landlock_ruleset_attr { handled_access_fs, handled_access_net, scoped }: nothing handled but the scope.
  const attr = new BigUint64Array([0n, 0n, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET]);
  const fd = Number(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ptr(attr), attr.byteLength, 0));
  if (fd < 0) return fail(`this kernel's Landlock (ABI ${landlockAbi()}) cannot scope abstract Unix sockets`);
  if (Number(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0)) !== 0) return fail("landlock_restrict_self failed");
  for (const k of keep) {
    const flags = libc.fcntl(k, F_GETFD, 0);
    if (flags < 0 || libc.fcntl(k, F_SETFD, flags & ~FD_CLOEXEC) !== 0) return fail(`descriptor ${k} cannot be handed on`);
  }
  const env = Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  const path = cStrings([argv[0]!]);
  const a = cStrings(argv);
  const e = cStrings(env);
  libc.execve(path.bufs[0]!, a.array, e.array);
  return fail(`${argv[0]} could not be started`);
}
