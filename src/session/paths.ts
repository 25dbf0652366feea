// Where saved sessions live. Apart from store.ts so reading the config does not load bun:sqlite.
import { homedir } from "node:os";
import { join } from "node:path";

/** `$XDG_STATE_HOME/bunker/sessions.db`, by default `~/.local/state/bunker/sessions.db`. */
export function defaultSessionsPath(env: Record<string, string | undefined>): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(state, "bunker", "sessions.db");
}
