// What one session remembers between tool calls: which files the model has
// read (and their content hash, for read-before-write), and its todo list.

export type TodoStatus = "pending" | "in_progress" | "completed";
export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

export class SessionState {
  /** Real path → hash of the content the model last saw. */
  readonly readHashes = new Map<string, string>();
  todos: TodoItem[] = [];
  /** Picked up with -c/-r: the history holds reads this run has not seen. */
  continued = false;

  recordRead(realPath: string, content: Uint8Array | string): void {
    this.readHashes.set(realPath, contentHash(content));
  }
}

export function contentHash(content: Uint8Array | string): string {
  return Bun.hash(content).toString(16);
}
