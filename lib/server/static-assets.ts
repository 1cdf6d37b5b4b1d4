/**
 * The dashboard's build assets (`/_next/static/…`: its JavaScript chunks and stylesheets), served
 * from memory with their gzip made once per process.
 *
 * Next.js serves these files itself, but gzips each one again on every request: a first visit
 * loads ~25 chunks (~1 MB of script), and measured on the ui-scale fleet that cost the server
 * ~65 ms of CPU per visit, taken in turns with the page's own document, whose server time it
 * doubled (a lineage page: 15 ms alone, 29 ms with its chunks loading beside it). The files of a
 * build never change under their names (Next serves them `immutable`; the names carry content
 * hashes or the build id, and this process serves the one build it prepared), so each is read and
 * compressed the first time it is asked for and kept.
 *
 * Only plain paths inside `.next/static` with a known type are answered here; anything else (a
 * missing file, `..`, an encoded separator, another method) is left to Next.js, which answers it as
 * before (its 404). Nothing here reads data: the dashboard guard lets these paths through unsigned
 * (dashboard-guard.ts), as it did when Next served them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const PREFIX = '/_next/static/';

/** The types of what a build writes there; a file of another type is left to Next. */
const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.json': 'application/json; charset=UTF-8',
  '.map': 'application/json; charset=UTF-8',
  '.txt': 'text/plain; charset=UTF-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Types worth compressing (text); fonts and images are compressed already. */
const TEXT = new Set(['.js', '.css', '.json', '.map', '.txt', '.svg']);

/** A file larger than this is left to Next (none of a build's is near it). */
const MAX_FILE_BYTES = 8 << 20;

/** Bytes kept at most; past it, files not yet kept are left to Next. */
const MAX_CACHE_BYTES = 64 << 20;

interface Asset {
  type: string;
  etag: string;
  body: Buffer;
  /** The gzip of `body`, when it is smaller. */
  gzip: Buffer | null;
}

export interface StaticAssets {
  /** Answers `req` when it asks for a build asset this can serve; false leaves it to the next handler. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** The path inside the static directory that `url` names, or null when it is not a plain one. */
export function staticAssetPath(url: string | undefined): string | null {
  if (!url) return null;
  const pathname = url.split('?', 1)[0]!;
  if (!pathname.startsWith(PREFIX)) return null;
  const encoded = pathname.slice(PREFIX.length);
  // An encoded `/`, `\` or NUL: not a name a build writes (and a way around the segment check).
  if (/%(2f|5c|00)/i.test(encoded)) return null;
  let rest: string;
  try {
    rest = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (/[\\\0]/.test(rest)) return null;
  // A `.`, `..` or empty segment: the same.
  const segments = rest.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return segments.join('/');
}

/** Whether `header` (Accept-Encoding) accepts gzip: listed, or `*`, with a q above 0. */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header ?? '';
  let star = false;
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** The assets of the build under `root` (`<root>/.next/static`). */
export function createStaticAssets(args: { root: string }): StaticAssets {
  const dir = path.join(args.root, '.next', 'static');
  const kept = new Map<string, Asset>();
  let keptBytes = 0;

  async function load(rel: string): Promise<Asset | null> {
    const type = TYPES[path.extname(rel).toLowerCase()];
    if (!type) return null;
    const file = path.join(dir, rel);
    if (path.relative(dir, file).startsWith('..')) return null;
    let body: Buffer;
    try {
      const stat = await fs.lstat(file);
      if (!stat.isFile() || stat.size > MAX_FILE_BYTES || keptBytes + stat.size > MAX_CACHE_BYTES) return null;
      body = await fs.readFile(file);
    } catch {
      return null;
    }
    const raced = kept.get(rel);
    if (raced) return raced; // asked for twice before the first read finished
    const zipped = TEXT.has(path.extname(rel).toLowerCase()) ? gzipSync(body, { level: 9 }) : null;
    const asset: Asset = {
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      body,
      gzip: zipped && zipped.length < body.length ? zipped : null,
    };
    keptBytes += body.length + (asset.gzip?.length ?? 0);
    kept.set(rel, asset);
    return asset;
  }

  return {
    async serve(req, res) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const rel = staticAssetPath(req.url);
      if (rel === null) return false;
      const asset = kept.get(rel) ?? (await load(rel));
      if (!asset) return false;
      res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      res.setHeader('etag', asset.etag);
      res.setHeader('vary', 'Accept-Encoding');
      if (matches(req.headers['if-none-match'], asset.etag)) {
        res.statusCode = 304;
        res.end();
        return true;
      }
      const body = asset.gzip && acceptsGzip(req.headers['accept-encoding']) ? asset.gzip : asset.body;
      res.statusCode = 200;
      res.setHeader('content-type', asset.type);
      res.setHeader('content-length', body.length);
      if (body === asset.gzip) res.setHeader('content-encoding', 'gzip');
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    },
  };
}
