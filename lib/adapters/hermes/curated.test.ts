import { describe, expect, it } from 'vitest';
import { hermesCuratedId } from '@/lib/core/ids';
import { classifyCuratedEntry, curatedRecords, splitCuratedEntries } from './curated';
import { redactConfigYaml } from './redact';

const MTIME = '2026-02-01T00:00:00Z';
const AGENT = '11111111-2222-4333-8444-555555555555';

describe('hermes curated notes', () => {
  it('matches the reference id vector and counts identical entries', () => {
    expect(hermesCuratedId('Same note.', 0)).toBe('940cb1c3-0d3b-50c7-a3a1-dac850dce5b9');
    const records = curatedRecords({ text: 'Same note.\n§\n  Same note.  \n§\nOther note.\n', mtime: MTIME, agentId: AGENT });
    expect(records.map((r) => r.id)).toEqual([
      hermesCuratedId('Same note.', 0),
      hermesCuratedId('Same note.', 1),
      hermesCuratedId('Other note.', 0),
    ]);
    expect(records[0]).toEqual({
      id: '940cb1c3-0d3b-50c7-a3a1-dac850dce5b9',
      agent_id: AGENT,
      content: 'Same note.',
      memory_type: 'semantic',
      source: { runtime: 'hermes', origin: 'memory_md', origin_file: 'memories/MEMORY.md', extraction_method: 'agent_written' },
      temporal: { created_at: MTIME },
      status: 'active',
      tags: ['hermes', 'curated'],
      namespace: 'curated',
      raw_source_format: { entry_index: 0, store: 'memory' },
    });
  });

  it('keeps the same id set when entries are re-ordered', () => {
    const ids = (text: string) => new Set(curatedRecords({ text, mtime: MTIME, agentId: AGENT }).map((r) => r.id));
    expect(ids('A.\n§\nB.\n§\nA.\n§\nC.')).toEqual(ids('C.\n§\nA.\n§\nB.\n§\nA.'));
  });

  it('splits on §, else on ## sections, else keeps the whole file; blanks dropped', () => {
    expect(splitCuratedEntries('one\n§\n\n§\n two ')).toEqual(['one', 'two']);
    expect(splitCuratedEntries('## Env\n\nuses nix\n\n## Style\n\ntabs\n')).toEqual(['## Env\n\nuses nix', '## Style\n\ntabs']);
    expect(splitCuratedEntries('Just one blob.\n')).toEqual(['Just one blob.']);
    expect(splitCuratedEntries(' \n\n')).toEqual([]);
  });

  it('classifies rule-like entries as procedural', () => {
    expect(classifyCuratedEntry('- Always run the tests')).toBe('procedural');
    expect(classifyCuratedEntry("## Don't push on Fridays")).toBe('procedural');
    expect(classifyCuratedEntry('Deploys must go through CI')).toBe('procedural');
    expect(classifyCuratedEntry('The staging URL is x.')).toBe('semantic');
  });
});

describe('config.yaml redaction', () => {
  it('drops secret values and blocks, keeps everything else byte-identical', () => {
    const text = [
      'model: gpt-5',
      'max_tokens: 4096',
      'api_key: sk-live-123',
      'providers:',
      '  - name: openai',
      '    OPENAI_API_KEY: "sk-abc"',
      '    token: |',
      '      multi-line',
      '      secret',
      '    base_url: https://x',
      'credentials:',
      '  user: me',
      '  pass: hunter2',
      'cwd: /home',
      '',
    ].join('\n');
    expect(redactConfigYaml(text)).toBe(
      ['model: gpt-5', 'max_tokens: 4096', 'api_key:', 'providers:', '  - name: openai', '    OPENAI_API_KEY:', '    token:', '    base_url: https://x', 'credentials:', 'cwd: /home', ''].join('\n'),
    );
  });

  it('keeps the blank lines and the final newline after a secret key with no value: redacting twice changes nothing', () => {
    const text = ['model: gpt-5', 'api_key:', '', 'cwd: /home', 'token:', '  nested: x', '', '  more: y', '', 'last: 1', 'password:', ''].join('\n');
    const redacted = ['model: gpt-5', 'api_key:', '', 'cwd: /home', 'token:', '', 'last: 1', 'password:', ''].join('\n');
    expect(redactConfigYaml(text)).toBe(redacted);
    expect(redactConfigYaml(redacted)).toBe(redacted);
    expect(redactConfigYaml('api_key: sk-live-123\n')).toBe('api_key:\n');
    expect(redactConfigYaml('api_key:\n')).toBe('api_key:\n');
  });
});
