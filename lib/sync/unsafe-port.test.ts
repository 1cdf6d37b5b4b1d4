/**
 * A URL on a port fetch refuses to connect to ("bad port": lib/client/unsafe-ports.ts) fails inside
 * fetch before any connection, which read as `cannot reach the server: bad port` — as if the server
 * were down. `--server` itself is checked where it is parsed (tests/cli/bad-input.test.ts); a signed
 * URL a server hands out on such a port (its public URL set so by a server that did not check it)
 * is said in words that name the server's public URL.
 */
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { UNSAFE_PORTS } from '@/lib/client/unsafe-ports';
import { startTestServer } from '@/tests/server/harness';
import { SyncError } from './errors';
import { httpTarget } from './http-target';
import { rebuildAt } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

it('the list is the one Node\'s fetch refuses: each listed port, and none of its neighbours', async () => {
  const refused = async (port: number) => {
    const error = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) }).then(() => null, (e: unknown) => e);
    return (error as { cause?: { message?: unknown } } | null)?.cause?.message === 'bad port';
  };
  const listed = [...UNSAFE_PORTS];
  const neighbours = [...new Set(listed.flatMap((p) => [p - 1, p + 1]))].filter((p) => p > 0 && !UNSAFE_PORTS.has(p));
  expect((await Promise.all(listed.map(refused))).every(Boolean)).toBe(true);
  expect((await Promise.all(neighbours.map(refused))).some(Boolean)).toBe(false);
});

it('a signed URL on such a port: the error names the server\'s public URL, not a server out of reach', async () => {
  const server = await startTestServer();
  cleanups.push(server.close);
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const target = httpTarget({ baseUrl: server.url, apiKey: server.keyA });
  await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  const synced = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock: steppingClock() });
  expect(synced).toMatchObject({ sequence: 0 });
  server.server.service.publicUrl = 'http://127.0.0.1:6000';
  const error = await rebuildAt({ target, agentId: synced.agent.alf_agent_id, now: new Date() }).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SyncError);
  expect(error).toMatchObject({
    code: 'server_unreachable',
    message: 'cannot reach the server: a URL the server handed out is on a port fetch refuses to connect to (a "bad port" of the Fetch standard)',
    hint: 'the server\'s operator must set its public URL (LINEAGE_PUBLIC_URL or --public-url) to an address on another port',
  });
  expect((error as SyncError).retryAfterSeconds).toBeUndefined();
});
