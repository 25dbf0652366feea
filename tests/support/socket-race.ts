// What the socket-race tests share: a workspace beside a readable folder whose run/other.sock another program
// listens on (a socket bunker masks, which then goes away before bubblewrap starts).
import { mkdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { unseenDir } from "./context.ts";

export function socketRaceFixture(): {
  make(prefix: string): Promise<{ base: string; root: string; shared: string; sock: string }>;
  cleanUp(): void;
} {
  const dirs: string[] = [];
  const servers: Server[] = [];
  return {
    async make(prefix) {
      const base = unseenDir(prefix);
      dirs.push(base);
      const root = join(base, "ws");
      const shared = join(base, "shared");
      mkdirSync(root);
      mkdirSync(join(shared, "run"), { recursive: true });
      const sock = join(shared, "run", "other.sock");
      const server = createServer();
      servers.push(server);
      await new Promise<void>((ok) => server.listen(sock, ok));
      return { base, root, shared, sock };
    },
    cleanUp() {
      for (const s of servers) s.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
