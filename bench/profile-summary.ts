/**
 * `npx tsx bench/profile-summary.ts FILE.cpuprofile… [--top N] [--under NAME]`: V8 CPU profiles (summed) as
 * two tables — inclusive time per function (a sample counts once for every distinct function on
 * its stack) and self time per function — in ms. `--under NAME`: only samples whose stack holds
 * a function called NAME (its inclusive breakdown).
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i < 0 ? undefined : argv[i + 1]; };
const files = argv.filter((a) => a.endsWith('.cpuprofile'));
if (files.length === 0) throw new Error('usage: profile-summary FILE.cpuprofile… [--top N] [--under NAME]');
const top = Number(value('top') ?? 30);
const under = value('under');
const inclusive = new Map<string, number>();
const self = new Map<string, number>();
let total = 0;
let wall = 0;
for (const file of files) add(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile);

function add(profile: Profile): void {
wall += (profile.endTime - profile.startTime) / 1000;
const parent = new Map<number, number>();
const byId = new Map<number, ProfileNode>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^file:\/\//, '').split('/node_modules/').pop()!.replace(process.cwd() + path.sep, '')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const stackOf = (id: number): ProfileNode[] => {
  const stack: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
  return stack;
};

profile.samples.forEach((id, i) => {
  const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
  const stack = stackOf(id);
  if (under && !stack.some((n) => n.callFrame.functionName === under)) return;
  total += ms;
  const leaf = label(stack[0]!);
  self.set(leaf, (self.get(leaf) ?? 0) + ms);
  for (const name of new Set(stack.map(label))) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
});
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms.toFixed(0).padStart(7)} ms  ${name}`);
};
console.log(`${files.join(' ')}: ${total.toFixed(0)} ms of samples${under ? ` under ${under}` : ''} (wall ${wall.toFixed(0)} ms)`);
print('inclusive', inclusive);
print('self', self);
