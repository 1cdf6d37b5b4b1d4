import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptSections, machineInfo, writeReport, type BenchReport } from './report';

const report: BenchReport = {
  mode: 'quick',
  date: '2026-12-02',
  machine: machineInfo(),
  settings: { turns: 2000 },
  results: [{ name: 'search.first_appearance', ours: 5.8, peer: 996, ratio: 172, unit: 'ms' }],
  notes: ['a generated note'],
};

describe('npm run bench report', () => {
  it('regenerates RESULTS.md but keeps the hand-written <!-- keep:NAME --> sections and the ui-scale section, verbatim and in order', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-report-'));
    const sync = '<!-- keep:sync-rows -->\n## Sync rows (hand-written)\n\n| row | ms |\n|---|---:|\n| upload | 520 |\n<!-- /keep -->';
    const ui = '<!-- ui-scale:start -->\n## UI at fleet scale\n\n| page | DOM |\n<!-- ui-scale:end -->';
    const notes = '<!-- keep:ui-scale-notes -->\n### before and after\n\ntext\n<!-- /keep -->';
    fs.writeFileSync(path.join(dir, 'RESULTS.md'), `# Benchmark results\n\nan OLD generated table\n\n${sync}\n\n## Reproduce\n\nold\n\n${ui}\n\n${notes}\n`);
    writeReport(dir, report);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).not.toContain('an OLD generated table');
    expect(md).toContain('| `search.first_appearance` | 5.8 | 996 | **172** | ms |');
    const at = [sync, ui, notes].map((s) => md.indexOf(s));
    expect(at.every((i) => i > md.indexOf('## Reproduce'))).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);

    // A second run keeps them once, not twice.
    writeReport(dir, report);
    const again = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(again).toBe(md);
  });

  it('writes the generated file alone when there is none before', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-report-'));
    writeReport(dir, report);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).not.toContain('<!--');
  });

  it('every hand-written section of the committed bench/RESULTS.md is closed, so that the next run keeps it', () => {
    const results = fs.readFileSync(path.join(__dirname, 'RESULTS.md'), 'utf8');
    const opened = [...results.matchAll(/<!-- keep:([\w.-]+) -->/g)].map((m) => m[1]);
    const kept = keptSections(results).map((section) => /^<!-- keep:([\w.-]+) -->/.exec(section)?.[1]).filter(Boolean);
    expect(opened.length).toBeGreaterThan(0);
    expect(kept).toEqual(opened);
  });
});
