import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip, createStaticAssets, staticAssetPath } from './static-assets';

/** A build directory with a chunk, a stylesheet, a font and a file outside `static`, served by a real HTTP server. */
let root: string;
let base: string;
let server: http.Server;
const CHUNK = `(globalThis.TURBOPACK||[]).push(${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `module ${i}`))});\n`;

interface Reply { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // A raw path: `fetch` would normalise `..` and encodings away before they reach the server.
    const req = http.request(`${base}/`, { method, headers, path: url }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'static-assets-'));
  await fs.mkdir(path.join(root, '.next', 'static', 'chunks'), { recursive: true });
  await fs.writeFile(path.join(root, '.next', 'static', 'chunks', 'app-1a2b.js'), CHUNK);
  await fs.writeFile(path.join(root, '.next', 'static', 'chunks', 'style.css'), 'body{color:red}'.repeat(100));
  await fs.writeFile(path.join(root, '.next', 'static', 'chunks', 'font.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32, 1, 2, 3]));
  await fs.writeFile(path.join(root, '.next', 'static', 'chunks', 'notes.unknown'), 'not a build type');
  await fs.writeFile(path.join(root, '.next', 'secret.txt'), 'outside the static directory');
  await fs.writeFile(path.join(root, 'secret.txt'), 'outside the build');
  const assets = createStaticAssets({ root });
  server = http.createServer((req, res) => {
    void assets.serve(req, res).then((served) => {
      if (!served) {
        res.statusCode = 404;
        res.end('left to next');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(root, { recursive: true, force: true });
});

describe('the build assets, served from memory', () => {
  it('answers a chunk gzipped to a browser that accepts it, and as is to one that does not', async () => {
    const zipped = await get('/_next/static/chunks/app-1a2b.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('application/javascript; charset=UTF-8');
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(CHUNK.length / 4);
    expect(gunzipSync(zipped.body).toString('utf8')).toBe(CHUNK);

    for (const headers of [{}, { 'accept-encoding': 'gzip;q=0, br' }, { 'accept-encoding': 'identity' }] as Record<string, string>[]) {
      const plain = await get('/_next/static/chunks/app-1a2b.js', headers);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString('utf8')).toBe(CHUNK);
      expect(plain.headers.etag).toBe(zipped.headers.etag);
    }
    const css = await get('/_next/static/chunks/style.css?dpl=x', { 'accept-encoding': '*' });
    expect(css.headers['content-type']).toBe('text/css; charset=UTF-8');
    expect(gunzipSync(css.body).toString('utf8')).toBe('body{color:red}'.repeat(100));
    // A font is compressed already: sent as is whatever the browser accepts.
    const font = await get('/_next/static/chunks/font.woff2', { 'accept-encoding': 'gzip' });
    expect(font.headers['content-encoding']).toBeUndefined();
    expect(font.headers['content-type']).toBe('font/woff2');
    expect([...font.body]).toEqual([0x77, 0x4f, 0x46, 0x32, 1, 2, 3]);
  });

  it('answers HEAD without a body, and a revalidation with its ETag by 304', async () => {
    const head = await get('/_next/static/chunks/app-1a2b.js', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    const etag = head.headers.etag!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get('/_next/static/chunks/app-1a2b.js', { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
    expect((await get('/_next/static/chunks/app-1a2b.js', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('reads and compresses a file once: later requests are answered from memory', async () => {
    const file = path.join(root, '.next', 'static', 'chunks', 'once.js');
    await fs.writeFile(file, 'first build');
    expect((await get('/_next/static/chunks/once.js')).body.toString()).toBe('first build');
    // A build's files never change under their names; a rewrite here shows the first read is kept.
    await fs.writeFile(file, 'rewritten on disk');
    expect((await get('/_next/static/chunks/once.js')).body.toString()).toBe('first build');
  });

  it('leaves to Next anything that is not a plain build file: traversal, encoded separators, other methods, unknown types, missing files', async () => {
    for (const url of [
      '/_next/static/../secret.txt',
      '/_next/static/../../secret.txt',
      '/_next/static/chunks/%2e%2e/%2e%2e/secret.txt',
      '/_next/static/chunks%2f..%2f..%2fsecret.txt',
      '/_next/static/chunks%5c..%5c..%5csecret.txt',
      '/_next/static/chunks/app-1a2b.js%00.css',
      '/_next/static//chunks/app-1a2b.js',
      '/_next/static/./chunks/app-1a2b.js',
      '/_next/static/chunks/%E0%A4%A',
      '/_next/static/chunks/notes.unknown',
      '/_next/static/chunks/missing.js',
      '/_next/static/chunks',
      '/_next/static/',
      '/_next/data/chunks/app-1a2b.js',
      '/static/chunks/app-1a2b.js',
    ]) {
      const reply = await get(url);
      expect({ url, status: reply.status, body: reply.body.toString() }).toEqual({ url, status: 404, body: 'left to next' });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      expect((await get('/_next/static/chunks/app-1a2b.js', {}, method)).body.toString()).toBe('left to next');
    }
  });
});

describe('staticAssetPath and acceptsGzip', () => {
  it('names only plain paths under /_next/static/', () => {
    expect(staticAssetPath('/_next/static/chunks/a.js?v=1')).toBe('chunks/a.js');
    expect(staticAssetPath('/_next/static/media/a%20b.woff2')).toBe('media/a b.woff2');
    expect(staticAssetPath('/_next/static/chunks/../a.js')).toBeNull();
    expect(staticAssetPath('/_next/static/chunks/%2E%2E/a.js')).toBeNull();
    expect(staticAssetPath(undefined)).toBeNull();
  });

  it('reads Accept-Encoding as a browser means it', () => {
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('GZIP')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(['br', 'gzip'])).toBe(true);
  });
});
