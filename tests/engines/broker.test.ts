/** The engines broker starts an engine only when asked, once, and removes it at close. */
import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startEnginesBroker } from './broker';

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

describe('engines broker', () => {
  it('starts nothing until asked, one PostgreSQL for any number of asks, and stops and removes it at close', async () => {
    const broker = await startEnginesBroker();
    expect(broker.started()).toEqual([]);
    const answers = await Promise.all([1, 2, 3].map(async () => (await fetch(`${broker.url}/postgres`)).json() as Promise<{ url: string; dir: string }>));
    expect(new Set(answers.map((answer) => answer.url)).size).toBe(1);
    expect(broker.started()).toEqual(['postgres']);
    const { url, dir } = answers[0]!;
    expect(await accepts(url)).toBe(true);
    expect(fs.existsSync(`${dir}/data/PG_VERSION`)).toBe(true);
    expect((await fetch(`${broker.url}/nothing`)).status).toBe(404);
    await broker.close();
    expect(await accepts(url)).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
