// Local HTTP servers for the network tests: each answers "hello from NAME"
// on a host loopback address (127.0.0.2, 127.0.0.3…) that a sandbox's own
// localhost does not cover, over plain HTTP and over TLS with a certificate
// made here, at test time (openssl), for that address. Loopback only.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./context.ts";

export interface TestServer {
  name: string;
  host: string;
  port: number;
  tlsPort: number;
  /** http://host:port */
  url: string;
  /** https://host:tlsPort */
  tlsUrl: string;
  /** The certificate file (PEM) a client should trust for tlsUrl. */
  caFile: string;
  /** Requests seen, as "METHOD path host-header". */
  seen: string[];
  stop(): void;
}

export const opensslAvailable = Bun.which("openssl") !== null;

/** A self-signed certificate and key for `host` (an IP address), generated now. */
export function selfSignedCert(host: string): { cert: string; key: string; certFile: string } {
  const dir = tempDir("bunker-cert-");
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  const r = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", `/CN=${host}`, "-addext", `subjectAltName=IP:${host}`, "-keyout", keyFile, "-out", certFile],
    { stdout: "ignore", stderr: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`openssl could not make a certificate: ${r.stderr.toString()}`);
  return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile };
}

/** Starts NAME's servers on `host`; `routes` add paths beyond "/" (which says hello). */
export function startTestServer(name: string, host: string, routes: Record<string, (req: Request) => Response | Promise<Response>> = {}): TestServer {
  const seen: string[] = [];
  const fetchHandler = (req: Request) => {
    const url = new URL(req.url);
    seen.push(`${req.method} ${url.pathname} ${req.headers.get("host")}`);
    const route = routes[url.pathname];
    if (route) return route(req);
    return new Response(`hello from ${name}\n`);
  };
  const plain = Bun.serve({ hostname: host, port: 0, fetch: fetchHandler });
  const { cert, key, certFile } = selfSignedCert(host);
  const tls = Bun.serve({ hostname: host, port: 0, tls: { cert, key }, fetch: fetchHandler });
  return {
    name,
    host,
    port: plain.port!,
    tlsPort: tls.port!,
    url: `http://${host}:${plain.port}`,
    tlsUrl: `https://${host}:${tls.port}`,
    caFile: certFile,
    seen,
    stop() {
      plain.stop(true);
      tls.stop(true);
    },
  };
}
