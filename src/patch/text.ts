// A file's text as lines plus the exact line ending of each, so that a patch
// changes only the lines it names: CRLF stays CRLF, a missing final newline
// stays missing, and a byte-order mark survives.

export interface FileText {
  /** Lines without their endings. */
  lines: string[];
  /** Each line's ending: "\n", "\r\n", or "" for a last line with no final newline. */
  eols: string[];
  bom: boolean;
}

export function splitText(content: string): FileText {
  const bom = content.startsWith("\uFEFF");
  const body = bom ? content.slice(1) : content;
  if (body === "") return { lines: [], eols: [], bom };
  const parts = body.split("\n");
  const lines: string[] = [];
  const eols: string[] = [];
  const last = parts.length - 1;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (k === last) {
      if (p !== "") {
        lines.push(p);
        eols.push("");
      }
      break;
    }
    if (p.endsWith("\r")) {
      lines.push(p.slice(0, -1));
      eols.push("\r\n");
    } else {
      lines.push(p);
      eols.push("\n");
    }
  }
  return { lines, eols, bom };
}

export function joinText(t: FileText): string {
  let s = t.bom ? "\uFEFF" : "";
  for (let k = 0; k < t.lines.length; k++) s += t.lines[k]! + t.eols[k]!;
  return s;
}

/** The ending most lines use ("\n" when there are none): what new lines get. */
export function dominantEol(t: FileText): string | undefined {
  let crlf = 0;
  let lf = 0;
  for (const e of t.eols) {
    if (e === "\r\n") crlf++;
    else if (e === "\n") lf++;
  }
  if (crlf === 0 && lf === 0) return undefined;
  return crlf > lf ? "\r\n" : "\n";
}

export function hasFinalNewline(t: FileText): boolean {
  return t.lines.length === 0 || t.eols[t.eols.length - 1] !== "";
}
