/**
 * The scale-out bench's engines: one throwaway PostgreSQL 15 and one radosgw (tests/engines), a
 * fresh database + bucket per measurement (`target`), the environment a `lineage serve` process
 * needs for them, and the CPU time each engine's processes have used (/proc), so a figure can say
 * what PostgreSQL and the gateway cost per delta on the 2 cores they share with everything else.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { createS3Client } from '@/lib/ledger/s3-config';
import { startPostgres, type RunningPostgres } from '@/tests/engines/postgres';
import { startRadosgw, type RunningRadosgw } from '@/tests/engines/radosgw';
import { scaleOutEnv } from '@/tests/engines/scale-out-env';
import { cpuMs } from '../lib/ingest-load';

export interface Target {
  databaseUrl: string;
  bucket: string;
  /** LINEAGE_* and AWS_* for a process on this database and bucket (its data directory not included). */
  env: Record<string, string>;
}

export interface Engines {
  postgres: RunningPostgres;
  radosgw: RunningRadosgw;
  /** A new database and a new bucket. */
  target(): Promise<Target>;
  /** CPU ms used so far by PostgreSQL's processes (postmaster and backends) and by Ceph's (mon, osd, radosgw). */
  cpu(): { postgres: number; radosgw: number };
  /** Runs SQL as the superuser on the database of `url`. */
  sql(url: string, text: string): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

function childrenOf(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone between the listing and the read
    }
  }
  return children;
}

/** CPU ms of the exited, waited-for children of `pid` (cutime + cstime). */
function reapedCpu(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** CPU ms of `roots`, all their live descendants and the children they reaped. */
function treeCpu(roots: readonly number[]): number {
  const children = childrenOf();
  let total = roots.reduce((sum, pid) => sum + reapedCpu(pid), 0);
  const todo = [...roots];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    total += cpuMs(pid) ?? 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Processes whose command line mentions `needle` (the Ceph daemons name their own ceph.conf). */
function pidsMentioning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

export async function startEngines(log: (line: string) => void): Promise<Engines> {
  const t0 = performance.now();
  const [postgres, radosgw] = await Promise.all([startPostgres(), startRadosgw()]);
  log(`engines: PostgreSQL 15 at ${postgres.url}, radosgw at ${radosgw.endpoint} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const postmaster = Number(fs.readFileSync(path.join(postgres.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ceph = pidsMentioning(path.join(radosgw.dir, 'ceph.conf'));
  const sql = async (url: string, text: string) => {
    const client = new pg.Client(url);
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  const s3 = createS3Client({ endpoint: radosgw.endpoint, region: radosgw.region, forcePathStyle: true },
    { accessKeyId: radosgw.accessKeyId, secretAccessKey: radosgw.secretAccessKey });
  return {
    postgres, radosgw, sql,
    async target() {
      const name = `bench_${randomBytes(4).toString('hex')}`;
      await sql(postgres.url, `CREATE DATABASE ${name}`);
      const databaseUrl = new URL(postgres.url);
      databaseUrl.pathname = `/${name}`;
      const bucket = name.replace('_', '-');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      return {
        databaseUrl: databaseUrl.toString(), bucket,
        env: scaleOutEnv(databaseUrl.toString(), bucket, radosgw),
      };
    },
    cpu: () => ({ postgres: treeCpu([postmaster]), radosgw: treeCpu(ceph) }),
    async stop() {
      s3.destroy();
      await Promise.all([postgres.stop(), radosgw.stop()]);
    },
  };
}
