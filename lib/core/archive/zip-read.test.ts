import { describe, expect, it } from 'vitest';
import { readZip, resolveLimits } from './zip-read';
import { writeZip } from './zip-write';

/** Counts turns of the event loop until stopped. */
function countTurns(): { stop(): number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => { running = false; return turns; } };
}

describe('readZip', () => {
  it('reads an archive held in memory without waiting a turn of the event loop per member', async () => {
    const entries = Array.from({ length: 300 }, (_, i) => ({ name: `raw/openclaw/memory/note-${i}.md`, data: Buffer.from(`# note ${i}\n`) }));
    const bytes = await writeZip(entries);
    const turns = countTurns();
    const { files } = await readZip(bytes, resolveLimits());
    const seen = turns.stop();
    expect([...files.keys()]).toEqual(entries.map((e) => e.name));
    expect(Buffer.from(files.get('raw/openclaw/memory/note-299.md')!).toString()).toBe('# note 299\n');
    // yauzl's reader answered each of its ~900 reads a turn later; this one answers on the next tick.
    expect(seen).toBeLessThan(10);
  });
});
