// Files that are not regular files, in a directory: a FIFO nobody writes to
// and a listening Unix socket. For the tests that give them to every tool.
import { join } from "node:path";

export interface SpecialFiles {
  root: string;
  fifo: string;
  socket: string;
  close(): void;
}

export async function specialFiles(root: string, names = { fifo: "pipe", socket: "sock" }): Promise<SpecialFiles> {
  const fifo = join(root, names.fifo);
  const socket = join(root, names.socket);
  if (Bun.spawnSync(["mkfifo", fifo]).exitCode !== 0) throw new Error("mkfifo failed");
  const server = Bun.listen({ unix: socket, socket: { data() {} } });
  return { root, fifo, socket, close: () => server.stop(true) };
}
