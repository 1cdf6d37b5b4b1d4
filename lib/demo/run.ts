/** Dev entry: `npx tsx lib/demo/run.ts DATA_DIR [YYYY-MM-DD]` seeds the demo fleet (the CLI wires `lineage demo`). */
import { parseDay } from './clock';
import { seedDemo } from './seed';

const [dataDir, today] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: tsx lib/demo/run.ts DATA_DIR [YYYY-MM-DD]');
const result = await seedDemo({ dataDir, today: today ? parseDay(today) : new Date(), log: (l) => process.stderr.write(`${l}\n`) });
process.stdout.write(JSON.stringify(result) + '\n');
