// Carry bytes both ways between two sockets until either side is done, then
// end the other; an error on either cuts both. Shared by the proxy and the
// in-sandbox forwarder.
import type { Socket } from "node:net";

export function splice(a: Socket, b: Socket): void {
  a.setTimeout(0);
  a.setNoDelay(true);
  b.setNoDelay(true);
  a.pipe(b);
  b.pipe(a);
  const cut = () => {
    a.destroy();
    b.destroy();
  };
  a.once("error", cut);
  b.once("error", cut);
  a.once("close", () => b.end());
  b.once("close", () => a.end());
  a.resume();
}
