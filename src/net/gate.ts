// The proxy's gate for a tool's connections: each host:port goes through
// Permissions (deny rules, --allow-net, net: rules, session grants, then the
// person or the no-prompt denial), decided once per gate so a command that
// opens fifty connections to one registry is asked once, and two at the same
// time share the one question.
import type { Permissions } from "../perms/permissions.ts";
import { PermissionDenied } from "../perms/permissions.ts";
import { isIPv4 } from "node:net";
import { localAddressKind } from "./address.ts";
import { hostsCover, netTarget, normalizeHost, parseHostPattern } from "./host-pattern.ts";
import type { NetGate } from "./proxy.ts";

/**
 * `signal`: aborted when what the connections are for has ended (the command exited): a question still open is withdrawn.
 * `onRefused`: told each refusal as Permissions gave it (with what the person is shown of it: web_fetch's result line).
 */
export function permissionGate(perms: Permissions, tool: string, requestedBy: string | (() => string), signal?: AbortSignal, onRefused?: (err: PermissionDenied) => void): NetGate {
  const decided = new Map<string, Promise<string | null>>();
  /** Targets the person allowed when asked (now or earlier in the session): for an address, a grant by address. */
  const approved = new Set<string>();
  return {
    admit(name, port) {
      // Judged as a rule would name it (localhost is 127.0.0.1): the question, the hint and the grant name one target.
      const target = netTarget(normalizeHost(name) ?? name, port);
      let decision = decided.get(target);
      if (!decision) {
        const before = perms.policy.decide("net", target);
        const byPerson = before.verdict === "ask" || before.grantedBy === "session";
        const by = typeof requestedBy === "string" ? requestedBy : requestedBy();
        decision = perms.authorize({ kind: "net", target, tool, net: { requestedBy: by }, ...(signal ? { signal } : {}) }).then(
          () => {
            if (byPerson) approved.add(target);
            return null;
          },
          (err: unknown) => {
            if (!(err instanceof PermissionDenied)) return `network access to ${target} failed: ${(err as Error).message}`;
            onRefused?.(err);
            return err.message;
          },
        );
        decided.set(target, decision);
      }
      return decision;
    },
    addressGranted(name, port) {
      const target = netTarget(normalizeHost(name) ?? name, port);
      return approved.has(target) || grantedByAddress(perms, target);
    },
    addressDenied(name, port) {
      const target = netTarget(normalizeHost(name) ?? name, port);
      const { deny } = perms.policy.grants;
      return deny.net.all || hostsCover(deny.net.hosts, target) ? `${target} is denied (--deny-net or a net: deny rule)` : null;
    },
  };
}

/** A flag or rule names this address (bare --allow-net, or a name that resolves to it, is not a grant by address). */
export function grantedByAddress(perms: Permissions, target: string): boolean {
  const { allow, deny } = perms.policy.grants;
  return hostsCover(allow.net.hosts, target) && !deny.net.all && !hostsCover(deny.net.hosts, target);
}

/**
 * The host loopback ports ("127.0.0.1:8765", "[::1]:8765") granted now by a flag, a rule or a session answer, and
 * not denied: a command's forwarder tunnels each from the sandbox's own loopback to the host's (forwarder.ts).
 */
export function grantedLoopbackTargets(perms: Permissions): string[] {
  const { allow } = perms.policy.grants;
  return loopbackTargets([...allow.net.hosts, ...perms.policy.sessionTargetsOf("net")], (target) => perms.policy.decide("net", target).verdict === "allow");
}

/**
 * Of host patterns, the loopback `address:port` targets (an IPv4 127/8 address, or [::1]; a port named) that
 * `granted` lets through: the ports a sandbox's forwarder tunnels to the host (commands' grants, an MCP server's
 * `net` list). A port below 1024 is left out: inside the sandbox nothing unprivileged may listen there (bunker
 * gives no sandbox a capability), so such a grant reaches only what goes through the proxy (HTTP_PROXY).
 */
export function loopbackTargets(patterns: readonly string[], granted: (target: string) => boolean): string[] {
  const out = new Set<string>();
  for (const text of patterns) {
    const p = parseHostPattern(text);
    if (!p || p.wildcard || p.port === undefined || p.port < 1024) continue;
    if (!(isIPv4(p.host) && localAddressKind(p.host) === "loopback") && p.host !== "[::1]") continue;
    const target = netTarget(p.host, p.port);
    if (granted(target)) out.add(target);
  }
  return [...out];
}
