// The `*** Begin Patch` envelope (Codex's apply_patch format) → the same
// FilePatch[] a unified diff parses into. Pure. The grammar, as read here:
//
//   patch     := other* "*** Begin Patch" section* "*** End Patch" other*
//   section   := blank* (add | delete | update)
//   add       := "*** Add File: " path  ("+" text | blank | "\ No newline…")*
//   delete    := "*** Delete File: " path
//   update    := "*** Update File: " path  ["*** Move to: " path]  hunk*
//   hunk      := ("@@" [text])*  line+  ["*** End of File"]  blank*
//   line      := " " text (context) | "-" text (removed) | "+" text (added)
//              | "" (an empty context line whose space an editor stripped)
//              | "\ No newline at end of file"
//
//   `@@ text` names a line to find first (stacked ones narrow the search: a
//   class, then a method); `@@ -12,5 +12,6 @@` is a line hint, not a line to
//   find. `*** End of File`: the hunk's lines end the file.
//
// Leniency, and its limit. Between sections, markers may be indented and blank
// lines may stand anywhere (after `*** End of File` too). Inside a hunk a
// marker ends the hunk only when it starts the line: a line starting with " ",
// "+" or "-" is always content, so a file that documents patches can be
// patched (` *** Update File: x` is a context line). Text before `*** Begin
// Patch` (a heredoc line, a sentence) is ignored.
import { clip, HunkBuilder, parseHunkNumbers, splitPatchLines, type PatchLine } from "./patch-lines.ts";
import { PatchSyntaxError, type FilePatch, type Hunk } from "./types.ts";

export function parseEnvelopeText(text: string): FilePatch[] {
  return parseEnvelope(splitPatchLines(text));
}

const FILE_MARKER = /^\*\*\* (Add File|Delete File|Update File):(.*)$/;

export function parseEnvelope(L: PatchLine[]): FilePatch[] {
  const n = L.length;
  // Anything before the envelope (a heredoc line, a sentence) is ignored.
  let i = L.findIndex((l) => l.text.trim() === "*** Begin Patch");
  if (i < 0) throw new PatchSyntaxError(1, "expected `*** Begin Patch`");
  i++;
  const out: FilePatch[] = [];
  const marker = (k: number) => L[k]!.text.trim();
  /** A marker that ends a section or hunk: at the start of its line (trailing spaces allowed). */
  const endsSection = (k: number) => {
    const t = L[k]!.text.trimEnd();
    return FILE_MARKER.test(t) || t === "*** End Patch";
  };

  while (i < n) {
    const t = marker(i);
    if (t === "*** End Patch") return out;
    if (t === "") {
      i++;
      continue;
    }
    const m = FILE_MARKER.exec(t);
    if (!m) {
      throw new PatchSyntaxError(
        i + 1,
        `expected \`*** Add File: path\`, \`*** Update File: path\`, \`*** Delete File: path\` or \`*** End Patch\`, got ${JSON.stringify(clip(L[i]!.text))}`,
      );
    }
    const line = i + 1;
    const path = m[2]!.trim();
    if (path === "") throw new PatchSyntaxError(line, `\`*** ${m[1]}:\` needs a path`);
    i++;
    switch (m[1]) {
      case "Delete File":
        out.push({ op: "delete", path, hunks: [], line });
        break;
      case "Add File": {
        const b = new HunkBuilder("*** Add File", line);
        for (; i < n && !endsSection(i); i++) {
          const { text, cr } = L[i]!;
          if (text.startsWith("+")) b.add("+", text.slice(1), cr);
          else if (text === "") b.blank();
          else if (text.startsWith("\\")) b.noNewline(i + 1);
          else throw new PatchSyntaxError(i + 1, `every line of an added file must start with "+", got ${JSON.stringify(clip(text))}`);
        }
        // A blank line inside an added file is an empty line whose "+" went missing.
        if (b.lineCount > 0) b.hunk.lines = fillAddedBlanks(b.hunk);
        out.push({ op: "add", path, hunks: b.lineCount > 0 ? [b.hunk] : [], line });
        break;
      }
      case "Update File": {
        let moveTo: string | undefined;
        if (i < n && marker(i).startsWith("*** Move to:")) {
          moveTo = marker(i).slice("*** Move to:".length).trim();
          if (moveTo === "") throw new PatchSyntaxError(i + 1, "`*** Move to:` needs a path");
          i++;
        }
        const hunks = readUpdateHunks();
        if (hunks.length === 0 && moveTo === undefined) {
          throw new PatchSyntaxError(line, `\`*** Update File: ${path}\` has no changes after it`);
        }
        out.push({ op: "update", path, ...(moveTo !== undefined && moveTo !== path ? { moveTo } : {}), hunks, line });
        break;
      }
    }
  }
  throw new PatchSyntaxError(n + 1, "the patch ends without `*** End Patch` (was it cut off?)");

  function readUpdateHunks(): Hunk[] {
    const hunks: Hunk[] = [];
    let cur: HunkBuilder | undefined;
    let afterEof = false;
    const finish = () => {
      if (!cur) return;
      if (cur.lineCount === 0 && cur.hunk.anchors.length === 0 && cur.hunk.oldStart === undefined) {
        throw new PatchSyntaxError(cur.hunk.line, "an empty `@@` hunk: add its context, removed and added lines");
      }
      if (cur.lineCount === 0) throw new PatchSyntaxError(cur.hunk.line, `the hunk ${JSON.stringify(clip(cur.hunk.header))} has no lines`);
      hunks.push(cur.hunk);
      cur = undefined;
    };
    for (; i < n && !endsSection(i); i++) {
      const { text, cr } = L[i]!;
      if (text.trimEnd() === "*** End of File") {
        if (!cur || cur.lineCount === 0) throw new PatchSyntaxError(i + 1, "`*** End of File` with no hunk lines before it");
        cur.hunk.atEof = true;
        finish();
        afterEof = true;
        continue;
      }
      // Before the first hunk a blank line is only spacing, and so is a whitespace-only line after `*** End of File`.
      if (!cur && (text === "" || (afterEof && text.trim() === ""))) continue;
      afterEof = false;
      if (text.startsWith("@@")) {
        const rest = text.replace(/^@@+/, "").trim();
        const nums = parseHunkNumbers(text);
        // Stacked `@@` lines narrow the search: `@@ class A` then `@@ def f`.
        if (!cur || cur.lineCount > 0) {
          finish();
          cur = new HunkBuilder(text.trim(), i + 1, { oldStart: nums.oldStart });
        } else {
          cur.hunk.header += ` ${text.trim()}`;
          if (nums.oldStart !== undefined) cur.hunk.oldStart = nums.oldStart;
        }
        // A unified-style `@@ -12,5 +12,6 @@` header is a line hint, not a line to find.
        if (nums.oldStart === undefined && rest !== "" && rest !== "@@") cur.hunk.anchors.push(rest);
        continue;
      }
      if (text === "") {
        cur!.blank();
        continue;
      }
      const c = text[0];
      if (c === " " || c === "-" || c === "+") {
        (cur ??= new HunkBuilder("(no @@ line)", i + 1)).add(c, text.slice(1), cr);
        continue;
      }
      if (c === "\\" && cur) {
        cur.noNewline(i + 1);
        continue;
      }
      throw new PatchSyntaxError(
        i + 1,
        `expected a hunk line starting with " " (context), "-" (removed), "+" (added) or "@@", got ${JSON.stringify(clip(text))}`,
      );
    }
    finish();
    return hunks;
  }
}

/** In an Add File section, inner blank lines are empty added lines (the builder made them context). */
function fillAddedBlanks(h: Hunk): Hunk["lines"] {
  return h.lines.map((l) => (l.op === " " ? { ...l, op: "+" } : l));
}
