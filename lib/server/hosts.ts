/**
 * Which `Host` headers this server answers (DNS-rebinding defence): loopback names, the bind
 * address, the public URL's host and `--allowed-hosts` / `LINEAGE_ALLOWED_HOSTS`. Others get 421.
 */

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** True for a loopback bind address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The host name of a `Host` header (port and IPv6 brackets removed, lower case), or null when malformed. */
export function hostnameOf(hostHeader: string | undefined): string | null {
  if (!hostHeader) return null;
  const h = hostHeader.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h);
  if (v6) return v6[1]!;
  const named = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(h);
  return named ? named[1]!.replace(/\.$/, '') : null;
}

/** The set of host names accepted in `Host`. */
export function allowedHostnames(params: { bindHost: string; publicUrl?: string; allowedHosts?: readonly string[] }): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  names.add(params.bindHost.toLowerCase().replace(/^\[|\]$/g, ''));
  if (params.publicUrl) names.add(new URL(params.publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  for (const name of params.allowedHosts ?? []) {
    const h = hostnameOf(name);
    if (h) names.add(h);
  }
  return names;
}

/** Splits `a.example, b.example:3000` into names; a malformed entry throws with its text. */
export function parseAllowedHosts(text: string | undefined, source: string): string[] {
  if (!text) return [];
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    if (!hostnameOf(entry)) throw new Error(`${source}: "${entry}" is not a host name`);
    return entry;
  });
}
