import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '@/lib/package-root';

/** Every source file under a directory, recursively. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(tsx?|jsx?)$/.test(e.name) ? [full] : [];
  });
}

describe('links', () => {
  it('go through components/ui/Link (prefetch on intent only): no other file imports next/link', () => {
    const root = packageRoot();
    const wrapper = path.join(root, 'components', 'ui', 'Link.tsx');
    const offenders = ['app', 'components', 'lib'].flatMap((d) => sources(path.join(root, d)))
      .filter((f) => f !== wrapper && /from ['"]next\/link['"]/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    expect(offenders).toEqual([]);
    expect(fs.readFileSync(wrapper, 'utf8')).toMatch(/prefetch=\{false\}/);
  });
});
