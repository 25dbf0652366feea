// Thousands of random mutations of the valid scenario patches (lines dropped,
// duplicated, swapped, @@ numbers changed, bytes flipped) go through the real
// tool. None may throw anything but a ToolError, and afterwards the workspace
// is either exactly as before (on any error) or exactly what the pure dry run
// of that same mutated patch predicts (on success): never partly changed.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { commitFiles, TransactionError, type FileOp } from "../../../src/fs/transaction.ts";
import { applyPatches } from "../../../src/patch/apply.ts";
import { parsePatch } from "../../../src/patch/parse.ts";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { ToolError, type ToolOutput } from "../../../src/tools/tool.ts";
import { makeContext, tempDir } from "../../support/context.ts";
import { readTree, resetTree } from "../../support/tree.ts";

const FIXTURES = join(import.meta.dir, "../..", "fixtures", "patch");
/**
 * How many mutated patches, and from which seed: modest by default so the
 * README's test command stays quick on a busy machine; CI runs the full size
 * (BUNKER_FUZZ_SIZE=3000 in .ci/run). A failure names its seed: rerun with
 * BUNKER_FUZZ_SEED=<seed> to see it again.
 */
const ITERATIONS = envInt("BUNKER_FUZZ_SIZE", 300);
const SEED = envInt("BUNKER_FUZZ_SEED", 0xb04e42);

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return n;
}

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Base {
  name: string;
  beforeDir: string;
  patch: string;
  root: string;
  /** Exact bytes and directories, for the "nothing changed" check. */
  tree: Record<string, string>;
}

/** Every scenario that succeeds (has after/ and no options): those patches are valid. */
function bases(): Base[] {
  return readdirSync(FIXTURES)
    .filter((d) => /^\d{3}-/.test(d) && existsSync(join(FIXTURES, d, "after")) && !existsSync(join(FIXTURES, d, "options.json")))
    .map((name) => {
      const dir = join(FIXTURES, name);
      const file = existsSync(join(dir, "patch.txt")) ? "patch.txt" : "patch.diff";
      const root = tempDir("bunker-fuzz-");
      resetTree(join(dir, "before"), root);
      return { name, beforeDir: join(dir, "before"), patch: readFileSync(join(dir, file), "utf8"), root, tree: readTree(root) };
    });
}

const FLIPS = ["\n", " ", "-", "+", "@", "\\", "*", "/", ".", "\r", "\u2014", "x", "0", "\t", ""];

function mutate(patch: string, rnd: () => number): string {
  let lines = patch.split("\n");
  const pick = () => Math.floor(rnd() * lines.length);
  const rounds = 1 + Math.floor(rnd() * 3);
  for (let r = 0; r < rounds; r++) {
    const i = pick();
    switch (Math.floor(rnd() * 6)) {
      case 0: // drop a line
        lines.splice(i, 1);
        break;
      case 1: // duplicate a line
        lines.splice(i, 0, lines[i] ?? "");
        break;
      case 2: {
        // swap two nearby lines
        const k = Math.min(lines.length - 1, i + 1 + Math.floor(rnd() * 3));
        [lines[i], lines[k]] = [lines[k] ?? "", lines[i] ?? ""];
        break;
      }
      case 3: {
        // change the numbers of an @@ header
        const hs = lines.map((l, k) => (l.startsWith("@@") ? k : -1)).filter((k) => k >= 0);
        const h = hs[Math.floor(rnd() * hs.length)];
        if (h !== undefined) lines[h] = lines[h]!.replace(/\d+/g, () => String(Math.floor(rnd() * 60)));
        break;
      }
      default: {
        // flip a byte somewhere
        const text = lines.join("\n");
        const at = Math.floor(rnd() * (text.length + 1));
        const by = FLIPS[Math.floor(rnd() * FLIPS.length)]!;
        lines = (text.slice(0, at) + by + text.slice(at + 1)).split("\n");
      }
    }
  }
  return lines.join("\n");
}

/**
 * What the workspace should hold if the tool succeeds: the pure dry run over
 * the before files, with paths resolved as the workspace resolver would
 * (no symlinks in these trees). Null when the patch cannot succeed.
 */
function predict(patch: string, root: string, files: Map<string, string>, dirs: Set<string>): Map<string, string> | null {
  let fps;
  try {
    fps = parsePatch(patch);
  } catch {
    return null;
  }
  if (fps.length === 0) return null;
  const norm = (p: string): string | null => {
    if (p.trim() === "" || p.includes("\0") || p.startsWith("~")) return null;
    const rel = relative(root, resolve(root, p));
    if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return null;
    return rel;
  };
  const mapped = [];
  for (const f of fps) {
    const path = norm(f.path);
    const moveTo = f.moveTo === undefined ? undefined : norm(f.moveTo);
    if (path === null || moveTo === null) return null;
    if (dirs.has(path) || (moveTo !== undefined && dirs.has(moveTo))) return null;
    mapped.push({ ...f, path, ...(moveTo !== undefined ? { moveTo } : {}) });
  }
  const r = applyPatches(mapped, (p) => files.get(p) ?? null);
  if (!r.ok) return null;
  const out = new Map(files);
  for (const c of r.changes) {
    if (c.from !== undefined) out.delete(c.from);
    if (c.after === null) out.delete(c.path);
    else out.set(c.path, c.after);
  }
  return out;
}

function filesOf(tree: Record<string, string>): Map<string, string> {
  return new Map(
    Object.entries(tree)
      .filter(([p]) => !p.endsWith("/"))
      .map(([p, latin1]) => [p, Buffer.from(latin1, "latin1").toString("utf8")]),
  );
}

describe("apply_patch fuzz", () => {
  test(`${ITERATIONS} mutated patches (seed ${SEED}) never escape as exceptions and never leave a workspace half-changed`, async () => {
    const all = bases();
    expect(all.length).toBeGreaterThan(20);
    const rnd = prng(SEED);
    const problems: string[] = [];
    let applied = 0;
    for (let n = 0; n < ITERATIONS && problems.length < 5; n++) {
      const base = all[Math.floor(rnd() * all.length)]!;
      const patch = mutate(base.patch, rnd);
      const files = filesOf(base.tree);
      const dirs = new Set(Object.keys(base.tree).filter((p) => p.endsWith("/")).map((p) => p.slice(0, -1)));
      const expected = predict(patch, base.root, files, dirs);
      const ctx = makeContext(base.root, { answers: [{ answer: "once" }] });

      let out: ToolOutput;
      try {
        out = await applyPatchTool.run({ patch }, ctx);
      } catch (err) {
        if (!(err instanceof ToolError)) {
          problems.push(`${base.name} #${n}: threw ${String(err)}\n${patch}`);
          continue;
        }
        out = { content: err.message, isError: true };
      }
      const isError = typeof out !== "string" && out.isError;
      const now = readTree(base.root);
      if (isError) {
        if (JSON.stringify(now) !== JSON.stringify(base.tree)) problems.push(`${base.name} #${n}: failed but changed the workspace\n${patch}`);
      } else {
        applied++;
        const got = filesOf(now);
        if (!expected) problems.push(`${base.name} #${n}: succeeded where the dry run predicts failure\n${patch}`);
        else if (JSON.stringify([...got].sort()) !== JSON.stringify([...expected].sort())) {
          problems.push(`${base.name} #${n}: result differs from the dry run\n${patch}`);
        }
        resetTree(base.beforeDir, base.root);
      }
    }
    expect(problems).toEqual([]);
    // The mutations must not be so destructive that nothing ever applies.
    expect(applied).toBeGreaterThan(ITERATIONS / 20);
    // Every applied patch goes through the journalled commit (fsyncs): allow 200 ms each (at least 2 minutes): beside four other suites on 2 cores it took 40 s.
  }, Math.max(120_000, ITERATIONS * 200));

  test("a multi-file write failing at any step leaves the workspace exactly as before", () => {
    const rnd = prng(7);
    const root = tempDir("bunker-fuzz-tx-");
    const names = ["a.txt", "b.txt", "sub/c.txt", "sub/deep/d.txt", "e.txt", "new/f.txt"];
    for (let n = 0; n < 200; n++) {
      resetTree(join(root, "nothing-here"), root);
      // A random starting tree, and a random set of writes and deletes over it that fails at a random step.
      const present = names.filter(() => rnd() < 0.6);
      for (const p of present) {
        const full = join(root, p);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, `${p} v${n}\n`);
      }
      const ops: FileOp[] = names
        .filter(() => rnd() < 0.7)
        .map((p): FileOp => (present.includes(p) && rnd() < 0.3 ? { kind: "delete", path: join(root, p) } : { kind: "write", path: join(root, p), data: `new ${p}\n` }));
      if (ops.length === 0) continue;
      const before = readTree(root);
      const failAt = Math.floor(rnd() * ops.length);
      let err: unknown;
      try {
        commitFiles(ops, {
          beforeCommitStep: (i) => {
            if (i === failAt) throw new Error("injected failure");
          },
        });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TransactionError);
      expect(readTree(root)).toEqual(before);
    }
  });
});
