// The proxy's gate for a tool's connections: each host:port goes through
// Permissions (deny rules, --allow-net, net: rules, session grants, then the
// person or the no-prompt denial), decided once per gate so a command that
// opens fifty connections to one registry is asked once, and two at the same
// time share the one question.
import type { Permissions } from "../perms/permissions.ts";
import { PermissionDenied } from "../perms/permissions.ts";
import { hostsCover, netTarget } from "./host-pattern.ts";
import type { NetGate } from "./proxy.ts";

export function permissionGate(perms: Permissions, tool: string, requestedBy: string): NetGate {
  const decided = new Map<string, Promise<string | null>>();
  return {
    admit(host, port) {
      const target = netTarget(host, port);
      let decision = decided.get(target);
      if (!decision) {
        decision = perms.authorize({ kind: "net", target, tool, net: { requestedBy } }).then(
          () => null,
          (err: unknown) => (err instanceof PermissionDenied ? err.message : `network access to ${target} failed: ${(err as Error).message}`),
        );
        decided.set(target, decision);
      }
      return decision;
    },
    addressGranted: (host, port) => grantedByAddress(perms, netTarget(host, port)),
  };
}

/** A local address is reachable only when a flag or rule names it (bare --allow-net is not a grant by address). */
export function grantedByAddress(perms: Permissions, target: string): boolean {
  const { allow, deny } = perms.policy.grants;
  return hostsCover(allow.net.hosts, target) && !deny.net.all && !hostsCover(deny.net.hosts, target);
}
