// Where saved sessions live. Apart from store.ts so reading the config does not load bun:sqlite.
import { homedir } from "../fs/home.ts";
import { isAbsolute, join } from "node:path";

/**
 * `$XDG_STATE_HOME/bunker/sessions.db`, by default `~/.local/state/bunker/sessions.db`.
 * A relative XDG_STATE_HOME is ignored, as the XDG spec says: it would put the
 * store (everything the model read) inside whatever project bunker runs in.
 */
export function defaultSessionsPath(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_STATE_HOME;
  const state = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".local", "state");
  return join(state, "bunker", "sessions.db");
}
