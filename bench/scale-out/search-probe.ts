/**
 * `npx tsx bench/scale-out/search-probe.ts [--turns 2000] [--history DIR] [--fact N] [--no-seqscan]`: diagnosis of the
 * PostgreSQL search on the bench history — the candidates' query plan (EXPLAIN ANALYZE) for planted
 * facts and the time of each of the search's statements (log_min_duration_statement = 0), on a copy made
 * by `lineage migrate`'s code in a throwaway PostgreSQL + radosgw.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { parseSearchQuery } from '@/lib/history/search/parse-query';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { migrateDataDir } from '@/lib/storage/migrate';
import { candidateQuery } from '@/lib/storage/pg/search';
import { startEngines } from './engines';
import { benchHistory } from './history';

const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const turns = Number(value('turns') ?? 2000);
  const history = await benchHistory({ turns, from: value('history'), log });
  const engines = await startEngines(log);
  try {
    const target = await engines.target();
    const config = storageConfigFrom(target.env);
    if (config.backend !== 'scale-out') throw new Error('not scale-out');
    await migrateDataDir({ dataDir: history.dataDir, target: config });
    if (argv.includes('--no-seqscan')) {
      // What the plan would be at a size where the planner picks the trigram index (a small history scans).
      await engines.sql(engines.postgres.url, 'ALTER SYSTEM SET enable_seqscan = off');
      await engines.sql(engines.postgres.url, 'SELECT pg_reload_conf()');
    }
    const storage = await openStorage(config);
    const client = new pg.Client(target.databaseUrl);
    await client.connect();
    if (argv.includes('--clean-pending')) await client.query("SELECT gin_clean_pending_list('record_versions_content_trgm_idx'::regclass)");
    // --explain 'A|B|…': plans of `content ~ A`, `content ~ B`, … (which patterns the trigram index takes well).
    for (const pattern of (value('explain') ?? '').split('|').filter(Boolean)) {
      const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) SELECT v.id FROM record_versions v WHERE v.op <> 'delete' AND v.content ~ $1`, [pattern]);
      log(`--- ~ ${pattern}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    const facts = value('fact') ? [history.facts[Number(value('fact'))]!] : history.facts.slice(0, 3);
    for (const fact of facts) {
      const { text, params } = candidateQuery(parseSearchQuery(fact.fact).terms, {});
      const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params.values);
      log(`--- ${fact.fact}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    await engines.sql(engines.postgres.url, 'ALTER SYSTEM SET log_min_duration_statement = 0');
    await engines.sql(engines.postgres.url, 'SELECT pg_reload_conf()');
    const logFile = path.join(engines.postgres.dir, 'server.log');
    const start = fs.statSync(logFile).size;
    for (const fact of facts) for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await storage.search({ q: fact.fact });
      log(`search ${fact.fact}: ${(performance.now() - t0).toFixed(2)} ms`);
    }
    const tail = fs.readFileSync(logFile, 'utf8').slice(start);
    log(tail.split('\n').filter((l) => l.includes('duration')).map((l) => l.replace(/^.*duration: /, '').slice(0, 160)).join('\n'));
    await client.end();
    await storage.close();
  } finally {
    await engines.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => { process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`); process.exit(1); });
