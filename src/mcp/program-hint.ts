// "Did you mean": the program on PATH nearest a name that is on none of its
// folders (a typo in a server's "command": notes-mpc for notes-mcp).
import { readdirSync } from "node:fs";
import { delimiter } from "node:path";
import { hostProgram } from "../sandbox/host-program.ts";
import { nearestWord, typoDistance } from "../text/typos.ts";

/**
 * The program name on PATH within a typo or two of `name` (nearestWord), or undefined. Only one bunker would
 * start: never one found only where a command can write (a planted name must not be suggested).
 */
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
  return nearestWord(name, [...names].filter((n) => typoDistance(n, name) <= 2 && hostProgram(n, path) !== null));
}
