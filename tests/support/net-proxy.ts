// The proxy in-process for the network tests: a gate that grants a list,
// a proxy on a loopback port for the length of a test, and raw requests to it.
import { connect } from "node:net";
import { NetProxy, type NetGate, type ProxyOptions } from "../../src/net/proxy.ts";
import { hostsCover, netTarget } from "../../src/net/host-pattern.ts";

/** Allows what `allowed` covers; grants by address what `byAddress` covers (by default the same). */
export function gate(allowed: string[], byAddress: string[] = allowed): NetGate & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async admit(host, port) {
      asked.push(netTarget(host, port));
      return hostsCover(allowed, netTarget(host, port)) ? null : `not granted: --allow-net=${netTarget(host, port)}`;
    },
    addressGranted: (host, port) => hostsCover(byAddress, netTarget(host, port)),
  };
}

export async function withProxy<T>(g: NetGate, fn: (url: string, proxy: NetProxy) => Promise<T>, resolve?: (h: string) => Promise<string[]>, options: Partial<ProxyOptions> = {}): Promise<T> {
  const proxy = new NetProxy({ gate: g, ...(resolve ? { resolve } : {}), ...options });
  const port = await proxy.listenLoopback();
  try {
    return await fn(`http://127.0.0.1:${port}`, proxy);
  } finally {
    await proxy.close();
  }
}

/** Sends raw bytes to the proxy and returns everything it answers. */
export function raw(proxyUrl: string, request: string): Promise<string> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), "127.0.0.1", () => s.write(request));
    let out = "";
    s.on("data", (d) => (out += d.toString("latin1")));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

