// run_bash commands in the real sandbox as another user (an unprivileged one when the tests run as root, for
// whom no folder is unlistable): `bun run-sandboxed-as.ts ROOT HOME COMMAND...` prints each result as JSON.
// From a test: sandboxedAs(…) runs it under setpriv; the person's git there runs as that user too (asPerson).
import { runSandboxed } from "./run-sandboxed.ts";

/** The user the rows run as: nobody when the tests run as root, else the tests' own. */
export const PERSON_UID = process.getuid?.() === 0 ? 65534 : (process.getuid?.() ?? 0);

/** argv run as that user. */
export function asPerson(argv: string[]): string[] {
  return process.getuid?.() === 0 ? ["setpriv", `--reuid=${PERSON_UID}`, `--regid=${PERSON_UID}`, "--clear-groups", ...argv] : argv;
}

/** Each command in turn in the real sandbox, as that user: the results' texts. */
export function sandboxedAs(root: string, home: string, env: Record<string, string>, commands: string[]): string[] {
  // (Not root's own toolchains on PATH: that user cannot look into /root.)
  const PATH = (process.env.PATH ?? "/usr/bin:/bin").split(":").filter((d) => PERSON_UID === process.getuid?.() || !d.startsWith("/root")).join(":");
  const r = Bun.spawnSync(asPerson([process.execPath, import.meta.path, root, home, ...commands]), { env: { ...env, PATH }, stdout: "pipe", stderr: "pipe", timeout: 120_000 });
  if (r.exitCode !== 0) throw new Error(`run-sandboxed-as failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as string[];
}

if (import.meta.main) {
  const [root, home, ...commands] = process.argv.slice(2);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home!, XDG_CONFIG_HOME: `${home}/.config` };
  const out: string[] = [];
  for (const c of commands) out.push(await runSandboxed(root!, c, env, home!));
  console.log(JSON.stringify(out));
}
