import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runAdapterConformance } from '../conformance';

const SECTIONS = ['## Gateway\nThe gateway is 10.20.0.5.\n', '## Editor\nPrefers vim keybindings.\n', '## Queue\nUse Redis Streams.\n'];
const write = (ws: string, sections: string[]) => fs.writeFile(path.join(ws, 'MEMORY.md'), `# Memory\n\n${sections.join('\n')}`);

runAdapterConformance({
  runtime: 'openclaw',
  async create() {
    const workspace = await fs.mkdtemp(path.join(os.tmpdir(), 'conf-openclaw-'));
    await write(workspace, SECTIONS);
    await fs.mkdir(path.join(workspace, 'memory'));
    await fs.writeFile(path.join(workspace, 'memory', '2026-06-01.md'), '# 2026-06-01\n\n## Standup\nShipped v2.\n');
    const prose: [string, string, string][] = [
      ['SOUL.md', '# Soul\nCalm.\n', '2026-05-02T08:00:00.125Z'],
      ['AGENTS.md', '# Agents\nBe brief.\n', '2026-05-03T09:00:00Z'],
      ['USER.md', '# User\nDana.\n', '2026-04-20T16:20:00.5Z'],
    ];
    for (const [rel, text, mtime] of prose) {
      await fs.writeFile(path.join(workspace, rel), text);
      await fs.utimes(path.join(workspace, rel), new Date(mtime), new Date(mtime));
    }
    return { workspace };
  },
  reorder: ({ workspace }) => write(workspace, [SECTIONS[2]!, SECTIONS[0]!, SECTIONS[1]!]),
  async editInPlace({ workspace }) {
    await write(workspace, [SECTIONS[0]!.replace('10.20.0.5', '10.20.0.9'), SECTIONS[1]!, SECTIONS[2]!]);
    return '10.20.0.9';
  },
  async removeItem({ workspace }) {
    await write(workspace, [SECTIONS[0]!, SECTIONS[2]!]);
    return 'vim keybindings';
  },
  cleanup: ({ workspace }) => fs.rm(workspace, { recursive: true, force: true }),
});
