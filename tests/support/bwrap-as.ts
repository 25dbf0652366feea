// One command in bubblewrap as bunker builds it for a spec, run as the
// unprivileged person (run-sandboxed-as.ts's user), with some processes of
// theirs running outside it: `bun bwrap-as.ts SPEC-JSON OUTSIDE COMMAND…`
// prints what the command printed. The mount checker's list is written by the
// user that runs bwrap, so the arguments are built as that user too.
import type { SandboxSpec } from "../../src/sandbox/spec.ts";
import { asPerson } from "./run-sandboxed-as.ts";

/** The command's stdout and stderr. */
export async function bwrapAsPerson(spec: SandboxSpec, command: string[], outside = 0): Promise<string> {
  const p = Bun.spawn(asPerson([process.execPath, import.meta.path, JSON.stringify(spec), String(outside), ...command]), { env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return out + err;
}

if (import.meta.main) {
  const { bubblewrapArgs } = await import("../../src/sandbox/bubblewrap.ts");
  const [spec, outside, ...command] = process.argv.slice(2);
  const sleepers = Array.from({ length: Number(outside) }, () => Bun.spawn(["sleep", "30"]));
  const r = Bun.spawnSync(bubblewrapArgs(JSON.parse(spec!) as SandboxSpec, command), { stdout: "pipe", stderr: "pipe" });
  for (const s of sleepers) s.kill(9);
  process.stdout.write(r.stdout);
  process.stdout.write(r.stderr);
}
