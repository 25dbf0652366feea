// "Did you mean": the program on PATH nearest a name that is on none of its
// folders (a typo in a server's "command": notes-mpc for notes-mcp).
import { readdirSync } from "node:fs";
import { delimiter } from "node:path";
import { nearestWord } from "../text/typos.ts";

/** The program name on PATH within a typo or two of `name` (nearestWord), or undefined. */
export function nearestProgram(name: string, path: string): string | undefined {
  const names = new Set<string>();
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      for (const entry of readdirSync(dir)) names.add(entry);
    } catch {
      // a folder on PATH that is missing or unreadable names nothing
    }
  }
  return nearestWord(name, names);
}
