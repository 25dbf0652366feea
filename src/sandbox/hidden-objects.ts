// The git object stores (and content stores) deny-read looks have hidden from commands this session, and what MCP
// servers were started with. A server's sandbox is made once, when it starts: a look that hides more later (a denied
// file committed mid-session, a walk that found it after the servers started) cannot reach a server already running.
// So a server started (or restarted with /mcp restart) after that look gets everything hidden so far, and the person
// is told when running servers still see what commands no longer do. No dependencies: MCP's start reads it without
// loading the history walk.

const hiddenSoFar = new Set<string>();
/** What every server started so far had hidden (null: none started). */
let serversSaw: Set<string> | null = null;

/** Stores a look hid from commands (each kept for the rest of the session: a server started later gets it hidden too). */
export function noteHidden(objects: readonly string[]): void {
  for (const o of objects) hiddenSoFar.add(o);
}

/** Everything looks have hidden from commands this session. */
export function objectsHiddenSoFar(): string[] {
  return [...hiddenSoFar];
}

/** MCP servers are being started with `hidden` masked. */
export function serversStartedWith(hidden: readonly string[]): void {
  const now = new Set(hidden);
  serversSaw = serversSaw === null ? now : new Set([...serversSaw].filter((o) => now.has(o)));
}

/** Whether some MCP server started this session may still see one of `objects`. */
export function serversMaySee(objects: readonly string[]): boolean {
  return serversSaw !== null && objects.some((o) => !serversSaw!.has(o));
}

/** For tests: forget the session's state. */
export function resetHiddenObjects(): void {
  hiddenSoFar.clear();
  serversSaw = null;
}
