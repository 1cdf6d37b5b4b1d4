/** Dev probe: sequential PutObject / GetObject / HeadObject latency on a throwaway radosgw. */
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '@/lib/ledger/s3-config';
import { startEngines } from './engines';

async function main() {
  const engines = await startEngines((l) => process.stderr.write(`${l}\n`));
  try {
    const t = await engines.target();
    const r = engines.radosgw;
    const s3 = createS3Client({ endpoint: r.endpoint, region: r.region, forcePathStyle: true }, { accessKeyId: r.accessKeyId, secretAccessKey: r.secretAccessKey });
    const body = Buffer.alloc(Number(process.argv[2] ?? 1200), 7);
    const time = async (label: string, fn: (i: number) => Promise<unknown>) => {
      const ms: number[] = [];
      for (let i = 0; i < 30; i++) { const t0 = performance.now(); await fn(i); ms.push(performance.now() - t0); }
      ms.sort((a, b) => a - b);
      process.stderr.write(`${label}: p50 ${ms[15]!.toFixed(1)} ms, min ${ms[0]!.toFixed(1)}, max ${ms[29]!.toFixed(1)}\n`);
    };
    await time('put', (i) => s3.send(new PutObjectCommand({ Bucket: t.bucket, Key: `k${i}`, Body: body, IfNoneMatch: '*' })));
    await time('get', async (i) => (await s3.send(new GetObjectCommand({ Bucket: t.bucket, Key: `k${i}` }))).Body!.transformToByteArray());
    await time('head', (i) => s3.send(new HeadObjectCommand({ Bucket: t.bucket, Key: `k${i}` })));
    await time('get (plain fetch, unsigned → 403)', async (i) => (await fetch(`${r.endpoint}/${t.bucket}/k${i}`)).arrayBuffer());
    s3.destroy();
  } finally { await engines.stop(); }
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
