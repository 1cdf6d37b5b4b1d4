import { it, expect } from 'vitest';
import { fileNameDate, fileNameDay } from './handlers';
it('fileNameDay is the instant of fileNameDate, for dates that exist and for those that do not', () => {
  const cases = ['memory/2026-02-28.md', 'memory/2026-02-29.md', 'memory/2024-02-29.md', 'memory/2026-13-01.md', 'memory/0099-01-01.md', 'memory/0001-12-31.md', 'memory/9999-12-31.md', 'memory/2026-00-10.md', 'memory/2026-04-31.md', 'memory/x.md', 'memory/a/2026-01-01.md', '2026-01-01.md'];
  for (let y = 1890; y < 2110; y += 7) for (let m = 0; m <= 13; m++) for (const d of [0, 1, 28, 29, 30, 31, 32]) cases.push(`memory/${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}.md`);
  for (const c of cases) {
    const date = fileNameDate(c);
    expect(fileNameDay(c), c).toBe(date === null ? null : Date.parse(`${date}T00:00:00Z`));
  }
});
