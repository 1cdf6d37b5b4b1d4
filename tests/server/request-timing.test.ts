import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { readRequestTimings, requestTimingLog } from '@/lib/server/request-timing';
import { resolveServeSettings } from '@/lib/server/serve-options';
import { tempDataDir } from './harness';

let server: LineageServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('request timing log (LINEAGE_REQUEST_TIMING_LOG)', () => {
  it('is read from the environment and off by default', () => {
    expect(resolveServeSettings({}, {}).requestTimingLog).toBeUndefined();
    expect(resolveServeSettings({}, { LINEAGE_REQUEST_TIMING_LOG: '/tmp/t.jsonl' }).requestTimingLog).toBe('/tmp/t.jsonl');
  });

  it('appends one line per finished request with its method, URL, status and server time', async () => {
    const dataDir = tempDataDir();
    const log = path.join(dataDir, 'timing.jsonl');
    server = await createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined, requestTimingLog: log });
    const a = await fetch(`${server.url}/v1/agents/not-a-uuid/latest`);
    await a.text();
    const b = await fetch(`${server.url}/nothing-here?x=1`);
    await b.text();
    const lines = readRequestTimings(log);
    expect(lines.map((l) => [l.method, l.url, l.status])).toEqual([
      ['GET', '/v1/agents/not-a-uuid/latest', a.status],
      ['GET', '/nothing-here?x=1', b.status],
    ]);
    for (const line of lines) {
      expect(line.ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(line.at)).not.toBeNaN();
    }
    // Read from an offset: only what came after.
    const size = fs.statSync(log).size;
    await (await fetch(`${server.url}/again`)).text();
    expect(readRequestTimings(log, size).map((l) => l.url)).toEqual(['/again']);
  });

  it('logs a response the client left before its end as aborted, once', () => {
    const log = path.join(tempDataDir(), 'timing.jsonl');
    const timer = requestTimingLog(log)!;
    const res = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: false }) as unknown as ServerResponse;
    timer({ method: 'GET', url: '/agents/x/sequences/0' } as IncomingMessage, res);
    res.emit('close');
    res.emit('finish');
    expect(readRequestTimings(log)).toEqual([expect.objectContaining({ url: '/agents/x/sequences/0', status: 200, aborted: true })]);
  });

  it('writes nothing when not configured', async () => {
    const dataDir = tempDataDir();
    server = await createLineageServer({ dataDir, port: 0, ui: false, log: () => undefined });
    await (await fetch(`${server.url}/x`)).text();
    expect(fs.readdirSync(dataDir).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
  });
});
