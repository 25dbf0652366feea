// bunker's wrappers inside the sandbox (the mount checker, the Unix-socket
// filter) end by becoming the program they were given: same pid, so the
// caller's process group, signals and exit status are the program's.

/** Where `name` runs from: itself when it has a slash, else the first on PATH; null when there is none. */
export function programPath(name: string): string | null {
  return name.includes("/") ? name : Bun.which(name, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
}

/** Becomes `argv[0]` (looked up on PATH when it has no slash) with `argv`; returns only when that fails, through `fail`. */
export function execInPlace(argv: string[], fail: (why: string) => number): number {
  // Started through `env VAR=0 bun main.ts` from a checkout: not the program's.
  const env = { ...process.env };
  if (env.BUN_RUNTIME_TRANSPILER_CACHE_PATH === "0") delete env.BUN_RUNTIME_TRANSPILER_CACHE_PATH;
  const program = programPath(argv[0]!);
  if (!program) return fail(`${argv[0]} was not found`);
  if (!process.execve) return fail("this runtime cannot start a program in its own place (process.execve)");
  try {
    process.execve(program, argv, env as Record<string, string>);
  } catch (e) {
    process.stderr.write(`bunker: ${argv[0]} could not be started (${(e as Error).message})\n`);
    return 127;
  }
  return 127;
}
