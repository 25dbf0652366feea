// SHA-256 sums in the format `sha256sum -c` and install.sh read:
// "<64 hex>  <file name>" one per line.
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** Write `dir/SHA256SUMS` for the given files (which must be in `dir`); returns its text. */
export async function writeChecksums(dir: string, files: string[]): Promise<string> {
  const lines: string[] = [];
  for (const f of files) lines.push(`${await sha256File(join(dir, f))}  ${basename(f)}`);
  const text = lines.join("\n") + "\n";
  writeFileSync(join(dir, "SHA256SUMS"), text);
  return text;
}
