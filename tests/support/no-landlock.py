# usage: python3 no-landlock.py PROGRAM ARGS...: runs PROGRAM as on a kernel without Landlock (before 5.13): a
# seccomp filter makes landlock_create_ruleset (syscall 444 on x86_64 and arm64) fail with ENOSYS. Inherited by
# everything PROGRAM starts, as the older kernel would be.
import ctypes, os, struct, sys

libc = ctypes.CDLL(None, use_errno=True)
def insn(code, jt, jf, k): return struct.pack("HBBI", code, jt, jf, k)
LD_NR, JEQ, RET = 0x20, 0x15, 0x06
ENOSYS = 38
prog = insn(LD_NR, 0, 0, 0) + insn(JEQ, 0, 1, 444) + insn(RET, 0, 0, 0x00050000 | ENOSYS) + insn(RET, 0, 0, 0x7FFF0000)
buf = ctypes.create_string_buffer(prog)
class SockFprog(ctypes.Structure): _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fprog = SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
assert libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
assert libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0, ctypes.get_errno()
os.execvp(sys.argv[1], sys.argv[1:])
