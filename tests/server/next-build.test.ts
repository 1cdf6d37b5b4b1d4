import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildNeeded } from '@/lib/server/next-ui';

describe('buildNeeded: npm start rebuilds the dashboard only when its sources changed', () => {
  it('asks for a build when none exists, none when up to date, and one after a source edit', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-build-'));
    try {
      fs.mkdirSync(path.join(dir, 'app'));
      fs.writeFileSync(path.join(dir, 'app', 'page.tsx'), 'x');
      expect(buildNeeded(dir)).toMatch(/no production build/);
      fs.mkdirSync(path.join(dir, '.next'));
      fs.writeFileSync(path.join(dir, '.next', 'BUILD_ID'), 'id');
      const past = new Date(Date.now() - 60_000);
      fs.utimesSync(path.join(dir, 'app', 'page.tsx'), past, past);
      fs.utimesSync(path.join(dir, 'app'), past, past);
      expect(buildNeeded(dir)).toBeNull();
      const future = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(dir, 'app', 'page.tsx'), future, future);
      expect(buildNeeded(dir)).toMatch(/app changed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
