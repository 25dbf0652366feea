// Self-describing file versions: a reader can tell a whole version from a
// torn, mixed or empty one.
const BODY = 1024 * 1024;

export function versionContent(v: number): string {
  const fill = String.fromCharCode(97 + (v % 26));
  return `version ${v} length ${BODY}\n${fill.repeat(BODY)}\nend of version ${v}\n`;
}

/** The version number when `text` is exactly one whole version, else null. */
export function wholeVersion(text: string): number | null {
  const m = /^version (\d+) length (\d+)\n/.exec(text);
  if (!m) return null;
  const v = Number(m[1]);
  return text === versionContent(v) ? v : null;
}
