// How much of the headless turn's lead over the reference loop is the cost of
// running that much code once, whoever wrote it. JavaScriptCore makes a code
// block for each function the first time it runs (the bytecode comes from the
// binary; the block and its metadata are made at the first call, sized by the
// whole function, not the part that runs): bunker's turn makes ~360 of them
// (~150 KB), the reference loop ~25.
//
// linkedCode() counts them in a real run (BUN_JSC_dumpGeneratedBytecodes).
// writeSameVolumeEntry() writes a program that first runs as many functions
// of that size as bunker's turn has more than the reference, each once, then
// is the reference loop: compiled with the same flags, it measures what the
// same amount of code costs without any of bunker's work.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CodeVolume {
  /** Code blocks made (functions, module bodies) during the run. */
  blocks: number;
  /** Their bytecode and metadata, bytes. */
  bytes: number;
}

/** The code blocks JavaScriptCore made while `argv` ran. */
export async function linkedCode(argv: string[], opts: { cwd: string; env: Record<string, string> }): Promise<CodeVolume> {
  const proc = Bun.spawn(argv, { cwd: opts.cwd, env: { ...opts.env, BUN_JSC_dumpGeneratedBytecodes: "1" }, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const err = await new Response(proc.stderr).text();
  await proc.exited;
  let blocks = 0;
  let bytes = 0;
  // One header line per code block: "<name>#<hash>:[…]: 89 instructions (…); 508 bytes (108 metadata bytes); …".
  for (const m of err.matchAll(/^\S.*: \d+ instructions \([^)]*\); (\d+) bytes/gm)) {
    blocks++;
    bytes += Number(m[1]);
  }
  if (blocks === 0) throw new Error(`${argv[0]} printed no code blocks with BUN_JSC_dumpGeneratedBytecodes set`);
  return { blocks, bytes };
}

/**
 * One function of about the size of an average block of bunker's (~420 bytes of bytecode and metadata), run whole
 * once: a few property reads and writes, string work, a branch each way. Each is its own text, so each is its own
 * block (JavaScriptCore shares nothing between them).
 */
function oneFunction(i: number): string {
  return `function f${i}(o, s) {
  const r = { n: 0, name: "x${i}", list: [] };
  if (typeof s !== "string") throw new Error("bad ${i}");
  if (s.charCodeAt(0) === ${(i % 90) + 32}) r.n++; else r.list.push(s[0]);
  if (o && o.flag) r.name = r.name + ":" + String(o.flag);
  else if (s.startsWith("--x${i}")) r.name = s.slice(4).trim();
  r.k = r.list.length === 0 ? "none" : "many${i}";
  return \`\${r.name}/\${r.k}/\${r.n}\`.length;
}`;
}

/** Writes `dir`/same-volume.ts: `count` functions run once each, then the reference loop (`referenceLoop`, a path). */
export function writeSameVolumeEntry(dir: string, count: number, referenceLoop: string): string {
  mkdirSync(dir, { recursive: true });
  const fns = Array.from({ length: count }, (_, i) => oneFunction(i));
  const body = `${fns.join("\n")}\nconst all = [${fns.map((_, i) => `f${i}`).join(", ")}];\nlet n = 0;\nfor (const f of all) n += f({ flag: 1 }, process.argv[2] ?? "");\nglobalThis.__sameVolume = n;\n`;
  writeFileSync(join(dir, "volume.js"), body);
  const entry = join(dir, "same-volume.ts");
  // Imports run in order: the functions first, then the reference loop's own start.
  writeFileSync(entry, `import "./volume.js";\nimport ${JSON.stringify(referenceLoop)};\n`);
  return entry;
}
