import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatNanos } from '@/lib/adapters/openclaw/workspace-files';
import { proseFileTimes } from '@/lib/adapters/openclaw/layers';
import { layerFileTimes } from '@/lib/adapters/hermes/layers';
import type { JsonObject, JsonValue } from '@/lib/core/json';
import { restoredLayerTimes, setLayerTimes, utimesSeconds } from './restore-layer-times';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

describe('setLayerTimes: a layer time back as the mtime it was read from', () => {
  it('sets each time to the microsecond, whatever its offset', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-layer-times-'));
    dirs.push(dir);
    const times = new Map([
      ['SOUL.md', ['2026-04-05T11:45:10.123456Z', '2026-04-05T11:45:10.123456Z']],
      ['USER.md', ['2020-08-04T15:36:35.598762+00:00', '2020-08-04T15:36:35.598762Z']],
      ['IDENTITY.md', ['2026-04-05T13:45:10.000001+02:00', '2026-04-05T11:45:10.000001Z']],
      ['AGENTS.md', ['1970-01-01T00:00:00.000001Z', '1970-01-01T00:00:00.000001Z']],
      ['TOOLS.md', ['2026-04-05T11:45:10Z', '2026-04-05T11:45:10Z']],
      // Finer than Node sets: kept to the microsecond.
      ['HEARTBEAT.md', ['2026-12-07T09:47:32.616859490Z', '2026-12-07T09:47:32.616859Z']],
    ]);
    for (const rel of times.keys()) await fs.writeFile(path.join(dir, rel), rel);
    await setLayerTimes(dir, new Map([...times].map(([rel, [time]]) => [rel, time!])));
    for (const [rel, [, read]] of times) {
      expect(formatNanos((await fs.stat(path.join(dir, rel), { bigint: true })).mtimeNs), rel).toBe(read);
    }
  });

  it('leaves a file alone when its time is not RFC 3339, or is before 1970 (which Node would set to now)', () => {
    for (const bad of ['', 'yesterday', '2026-04-05 11:45:10Z', '2026-04-05T11:45:10', '2026-13-45T11:45:10Z', '1969-07-20T20:17:40.199999Z']) expect(utimesSeconds(bad), bad).toBeNull();
  });
});

describe('restoredLayerTimes: which restored file gets which layer time', () => {
  const identity = { updated_at: '2026-04-05T11:45:10.123456Z', prose: { soul: 'Be kind.', custom_blocks: { tools_guidance: 'Use make.' } } };
  const principal = (userProfile: JsonValue, updatedAt: JsonValue = '2020-08-04T15:36:35.598762Z'): JsonObject => ({
    principals: [
      { id: 'p-agent', principal_type: 'agent', profile: { updated_at: '1999-01-01T00:00:00Z', prose: { user_profile: 'Dana' } } },
      { id: 'p-human', principal_type: 'human', profile: { updated_at: updatedAt, prose: { user_profile: userProfile } } },
    ],
  });
  const bytes = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([rel, text]) => [rel, new TextEncoder().encode(text)]));
  const where = { identity: [['SOUL.md', ['soul']], ['TOOLS.md', ['custom_blocks', 'tools_guidance']], ['IDENTITY.md', ['identity_profile']]] as const, user: 'USER.md' };

  it('each file that holds exactly its layer\'s prose: the identity\'s updated_at, the human principal\'s profile.updated_at; identity files first, in order', () => {
    const times = restoredLayerTimes({ identity, principals: principal('Dana') }, bytes({ 'USER.md': 'Dana', 'TOOLS.md': 'Use make.', 'SOUL.md': 'Be kind.' }), where);
    expect([...times]).toEqual([['SOUL.md', identity.updated_at], ['TOOLS.md', identity.updated_at], ['USER.md', '2020-08-04T15:36:35.598762Z']]);
  });

  it('none for a file whose text differs, is missing or has no layer text, nor for a time that is not a string', () => {
    expect(restoredLayerTimes({ identity, principals: principal('Dana') }, bytes({ 'SOUL.md': 'Be kind!', 'USER.md': 'Dana\n', 'IDENTITY.md': '' }), where).size).toBe(0);
    expect(restoredLayerTimes({ identity: { ...identity, updated_at: 5 }, principals: principal('Dana', null) }, bytes({ 'SOUL.md': 'Be kind.', 'USER.md': 'Dana' }), where).size).toBe(0);
    expect(restoredLayerTimes({ identity: { ...identity, prose: ['Be kind.'] }, principals: principal(['Dana']) }, bytes({ 'SOUL.md': 'Be kind.', 'USER.md': 'Dana' }), where).size).toBe(0);
  });

  it('OpenClaw\'s prose files and Hermes\' SOUL.md and memories/USER.md', () => {
    const layers = { identity: { ...identity, prose: { ...identity.prose, identity_profile: 'Name: Atlas', operating_instructions: 'Plan.', custom_blocks: { tools_guidance: 'Use make.', heartbeat_checklist: 'Ping.', boot_checklist: 'Boot.' } } }, principals: principal('Dana') };
    const openclaw = bytes({ 'SOUL.md': 'Be kind.', 'IDENTITY.md': 'Name: Atlas', 'AGENTS.md': 'Plan.', 'TOOLS.md': 'Use make.', 'HEARTBEAT.md': 'Ping.', 'BOOTSTRAP.md': 'Boot.', 'USER.md': 'Dana' });
    expect([...proseFileTimes(layers, openclaw).keys()]).toEqual(['SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'TOOLS.md', 'HEARTBEAT.md', 'BOOTSTRAP.md', 'USER.md']);
    expect([...layerFileTimes(layers, bytes({ 'SOUL.md': 'Be kind.', 'memories/USER.md': 'Dana', 'USER.md': 'Dana' }))]).toEqual([['SOUL.md', identity.updated_at], ['memories/USER.md', '2020-08-04T15:36:35.598762Z']]);
  });
});
