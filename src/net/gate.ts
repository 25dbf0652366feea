// The proxy's gate for a tool's connections: each host:port goes through
// Permissions (deny rules, --allow-net, net: rules, session grants, then the
// person or the no-prompt denial), decided once per gate so a command that
// opens fifty connections to one registry is asked once, and two at the same
// time share the one question.
import type { Permissions } from "../perms/permissions.ts";
import { PermissionDenied } from "../perms/permissions.ts";
import { hostsCover, netTarget } from "./host-pattern.ts";
import type { NetGate } from "./proxy.ts";

/** `signal`: aborted when what the connections are for has ended (the command exited): a question still open is withdrawn. */
export function permissionGate(perms: Permissions, tool: string, requestedBy: string | (() => string), signal?: AbortSignal): NetGate {
  const decided = new Map<string, Promise<string | null>>();
  /** Targets the person allowed when asked (now or earlier in the session): for an address, a grant by address. */
  const approved = new Set<string>();
  return {
    admit(host, port) {
      const target = netTarget(host, port);
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
    addressGranted: (host, port) => approved.has(netTarget(host, port)) || grantedByAddress(perms, netTarget(host, port)),
  };
}

/** A flag or rule names this address (bare --allow-net, or a name that resolves to it, is not a grant by address). */
export function grantedByAddress(perms: Permissions, target: string): boolean {
  const { allow, deny } = perms.policy.grants;
  return hostsCover(allow.net.hosts, target) && !deny.net.all && !hostsCover(deny.net.hosts, target);
}
