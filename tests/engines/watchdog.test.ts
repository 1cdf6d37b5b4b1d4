/** A run killed outright leaves no engine behind: the watchdog stops it and removes its directory. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { waitFor } from './process-tools';

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('engine watchdog', () => {
  it('a SIGKILLed owner: its PostgreSQL stops and its directory goes', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'orphan-child.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const started = await new Promise<{ url: string; dir: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; dir: string });
      });
      child.once('exit', (code) => reject(new Error(`child exited ${code} before starting PostgreSQL`)));
    });
    expect(await accepts(started.url)).toBe(true);
    child.kill('SIGKILL');
    await waitFor('the orphaned PostgreSQL to stop', async () => !(await accepts(started.url)), 30_000);
    await waitFor('its directory to be removed', async () => !fs.existsSync(started.dir), 30_000);
  });
});
