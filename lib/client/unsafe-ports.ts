/**
 * Ports no browser and no `fetch` connects to: the Fetch standard's "bad ports" (fetch.spec.whatwg.org,
 * "port blocking"; Chromium and Firefox refuse the same list). Node's own `fetch` fails with "bad
 * port" before it opens a connection, so a server on one of them is out of reach of the dashboard's
 * browsers and of our own client, whatever the network. Checked against Node 20's `fetch` for every
 * port from 1 to 65535 (unsafe-ports.test.ts keeps a sample of the check).
 */
export const UNSAFE_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
  115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
  563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
  6668, 6669, 6679, 6697, 10080,
]);

/** The port an http(s) URL connects to (its default when it names none). */
export function urlPort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Why port `port` cannot be used by a browser or `fetch`, in words; null when it can. */
export function unsafePortReason(port: number): string | null {
  return UNSAFE_PORTS.has(port)
    ? `port ${port} is one that browsers and fetch clients refuse to connect to (a "bad port" of the Fetch standard, kept for another protocol)`
    : null;
}
