/**
 * A bucket quota on the run's radosgw (radosgw-admin on the gateway's own ceph.conf): what the
 * scale-out full-store tests use to make the object store answer `QuotaExceeded` (HTTP 403) as a
 * bucket or user quota reached does. Only the given bucket's quota: other suites' buckets are untouched.
 */
import path from 'node:path';
import { run } from './process-tools';
import type { S3Settings } from './scale-out-env';

async function admin(settings: S3Settings, args: string[]): Promise<void> {
  if (settings.dir === undefined) throw new Error('the run\'s radosgw gave no directory (its ceph.conf) to run radosgw-admin with');
  await run('radosgw-admin', ['-c', path.join(settings.dir, 'ceph.conf'), '-n', 'client.rgw.t', ...args]);
}

/** Limits `bucket` to `maxBytes` bytes (enabled), or lifts its quota (`null`). */
export async function setBucketQuota(settings: S3Settings, bucket: string, maxBytes: number | null): Promise<void> {
  if (maxBytes === null) {
    await admin(settings, ['quota', 'disable', '--quota-scope=bucket', `--bucket=${bucket}`]);
    return;
  }
  await admin(settings, ['quota', 'set', '--quota-scope=bucket', `--bucket=${bucket}`, `--max-size=${maxBytes}`]);
  await admin(settings, ['quota', 'enable', '--quota-scope=bucket', `--bucket=${bucket}`]);
}
