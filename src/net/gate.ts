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

/** `signal`: aborted when what the connections are for has ended (the command exited): a question still open is withdrawn. */
export function permissionGate(perms: Permissions, tool: string, requestedBy: string | (() => string), signal?: AbortSignal): NetGate {
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
          (err: unknown) => (err instanceof PermissionDenied ? err.message : `network access to ${target} failed: ${(err as Error).message}`),
        );
        decided.set(target, decision);
      }
      return decision;
    },
    addressGranted(name, port) {
      const target = netTarget(normalizeHost(name) ?? name, port);
      return approved.has(target) || grantedByAddress(perms, target);
    },
  };
}

/** A flag or rule names this address (bare --allow-net, or a name that resolves to it, is not a grant by address). */
export function grantedByAddress(perms: Permissions, target: string): boolean {
  const { allow, deny } = perms.policy.grants;
  return hostsCover(allow.net.hosts, target) && !deny.net.all && !hostsCover(deny.net.hosts, target);
}

/**
 * The host loopback ports (IPv4 "address:port") granted now by a flag, a rule or a session answer, and not denied:
 * a command's forwarder tunnels each from the sandbox's own loopback to the host's (forwarder.ts).
 */
export function grantedLoopbackTargets(perms: Permissions): string[] {
  const { allow } = perms.policy.grants;
  const out = new Set<string>();
  for (const text of [...allow.net.hosts, ...perms.policy.sessionTargetsOf("net")]) {
    const p = parseHostPattern(text);
    if (!p || p.wildcard || p.port === undefined || !isIPv4(p.host) || localAddressKind(p.host) !== "loopback") continue;
    const target = netTarget(p.host, p.port);
    if (perms.policy.decide("net", target).verdict === "allow") out.add(target);
  }
  return [...out];
}
