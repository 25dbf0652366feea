// The temp directories tests make, removed once the run ends (the preload
// tests/support/clean-temp.ts asks for that): a full run made thousands under
// /tmp and kept them, and the machine's disk filled up.
import { rmSync } from "node:fs";

const made: string[] = [];

export function remember(dir: string): string {
  made.push(dir);
  return dir;
}

export function removeAll(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a busy mount: left for the system's own cleaning of /tmp
    }
  }
}
