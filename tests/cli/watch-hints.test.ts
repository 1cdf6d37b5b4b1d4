/**
 * What a server's refusal tells the user of a `lineage watch`: its syncs' errors are the same as a
 * `lineage sync`'s, but the hint of each — "run `lineage watch` again" for a 409, 413, 500, 507,
 * "run the same sync again" for a busy server's 503 — sent its user to start again a watch that goes
 * on and tries again by itself. The table over statuses (lib/sync/http-target.ts `serverRefusal`, the
 * command a watch's target names), then a real watch against a real server that refuses its upload as
 * too large: the hint it prints, and that a smaller workspace then syncs with no restart.
 */
import { describe, expect, it } from 'vitest';
import { AlfApiError } from '@/lib/client/alf-api';
import { serverRefusal } from '@/lib/sync/http-target';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { startTestServer } from '../server/harness';
import { startWatch } from './watch-process';

const WATCH = { command: 'lineage watch', server: 'http://lineage.example:8080' };
const GOES_ON = 'this watch goes on and syncs again by itself (no need to start it again)';

describe('the hints of a watch\'s syncs', () => {
  it.each([403, 405, 408, 409, 413, 415, 429, 431, 500, 502, 503, 507])('HTTP %i: never "run `lineage watch` again"', (status) => {
    const error = serverRefusal(WATCH, 'sync_upload_failed', new AlfApiError('upload delta', status, `the server's words for ${status}`));
    expect(error.hint).toEqual(expect.any(String));
    expect(error.hint).not.toMatch(/`lineage watch` again|run the same (command|sync) again/);
    expect(error.hint).toMatch(/this watch goes on/);
    expect(error.message).toContain(`the server's words for ${status}`);
  });

  it('409, 413, 500, 507: the watch goes on by itself, after what is to be done on the server', () => {
    const hint = (status: number) => serverRefusal(WATCH, 'sync_upload_failed', new AlfApiError('upload delta', status, 'words')).hint;
    expect(hint(409)).toContain(`replaced nothing: nothing was stored on the server; ${GOES_ON}, and if the server says the same`);
    expect(hint(413)).toContain(`ask the server's operator to raise the limit, or make the workspace's memory smaller, then ${GOES_ON}`);
    expect(hint(500)).toContain(`${GOES_ON}, and if it fails again, tell the server's operator`);
    expect(hint(507)).toContain(`ask the server's operator to free space where its data (or its database and blobs) are stored, then ${GOES_ON}`);
    // A `lineage sync`'s hint is as it was.
    expect(serverRefusal({ ...WATCH, command: 'lineage sync' }, 'sync_upload_failed', new AlfApiError('upload delta', 413, 'words')).hint).toContain('then run `lineage sync` again');
  });

  it('a busy server\'s 503: the watch tries again by itself after the Retry-After, no need to run anything', () => {
    for (const failed of ['sync_upload_failed', 'registration_failed'] as const) {
      const error = serverRefusal(WATCH, failed, new AlfApiError('upload delta', 503, 'busy', 7));
      expect(error.retryAfterSeconds).toBe(7);
      expect(error.hint).toBe('the server is busy: this watch tries the sync again by itself in 7 s or later (the server\'s Retry-After), no need to start it again; this machine\'s state is as it was, and an upload the server did keep is recognised at the next sync, not sent twice');
    }
    expect(serverRefusal({ ...WATCH, command: 'lineage sync' }, 'sync_upload_failed', new AlfApiError('upload delta', 503, 'busy', 7)).hint).toMatch(/^the server is busy: run the same sync again in 7 s/);
  });

  it('a real watch whose first snapshot a real server refuses as too large (413): its hint says it goes on, and it does — a smaller workspace syncs with no restart', async () => {
    const server = await startTestServer({ maxBodyBytes: 2000 });
    const sb = await makeSandbox('lineage-watch-hints-');
    try {
      await sb.write('MEMORY.md', `# M\n\n${Array.from({ length: 60 }, (_, i) => `## Fact ${i}\nThe value of fact ${i} is ${(i * 7919) % 10007} and ${'x'.repeat(i)}.\n`).join('\n')}`);
      const watch = startWatch(['-w', sb.workspace, '--server', server.url, '--key', server.keyA, '--quiet', '200', '--interval', '0'], { ALF_HOME: sb.alfHome });
      await watch.until((w) => w.outputs().length === 1, 'its first sync');
      const refused = watch.outputs()[0]!;
      expect(refused).toMatchObject({ ok: false, code: 'sync_upload_failed', error: expect.stringContaining('HTTP 413') });
      expect(refused.hint).toContain(`make the workspace's memory smaller, then ${GOES_ON}`);
      expect(refused.hint).not.toContain('`lineage watch` again');
      await sb.write('MEMORY.md', '# M\n\n## Fact 1\nSmall.\n');
      await watch.until((w) => w.outputs().length === 2, 'a sync of the smaller workspace');
      expect(watch.outputs()[1]).toMatchObject({ ok: true, sequence: 0, delta: false });
    } finally {
      await sb.cleanup();
      await server.close();
    }
  }, 120_000);
});
