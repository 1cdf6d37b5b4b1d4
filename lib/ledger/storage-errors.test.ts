/**
 * Which scale-out failures are "no space left" (a 507 `disk_full`) and which are not. The real
 * engines' own errors: tests/server/scale-out-full-store.test.ts (radosgw's bucket quota) and
 * tests/server/scale-out-full-database.test.ts (PostgreSQL on a full tablespace, root only).
 */
import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { LedgerError } from './errors';
import { scaleOutFullError, storageError } from './storage-errors';

/** A PostgreSQL error as `pg` gives it: a message and its SQLSTATE in `code`. */
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function s3Error(name: string, status: number, fields: Record<string, string> = {}): S3ServiceException {
  return Object.assign(new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status } }), { Code: name, ...fields });
}

const DATABASE_FULL = 'the database has no space left (PostgreSQL disk_full, SQLSTATE 53100): free or add space on the database server\'s disk and retry (nothing was stored)';

describe('scaleOutFullError', () => {
  it('PostgreSQL 53100 disk_full, itself or as a cause, is disk_full naming the database', () => {
    for (const error of [pgError('53100', 'could not extend file "base/1/2": No space left on device'), new Error('ingest failed', { cause: pgError('53100', 'x') })]) {
      const mapped = scaleOutFullError(error);
      expect([mapped?.code, mapped?.message]).toEqual(['disk_full', DATABASE_FULL]);
      expect(storageError(error, null)?.message).toBe(DATABASE_FULL);
    }
  });

  it('the rest of class 53 is not "no space": out of memory, a configuration limit, too many connections', () => {
    for (const code of ['53200', '53400', '53300']) expect(scaleOutFullError(pgError(code, 'x'))).toBeNull();
  });

  it('the object store\'s quota reached or no capacity left is disk_full naming the bucket', () => {
    expect(scaleOutFullError(s3Error('QuotaExceeded', 403, { BucketName: 'b1' }))?.message).toBe(
      'the object store\'s bucket b1 has no space left for this upload (its quota is reached: QuotaExceeded): raise the bucket\'s or its owner\'s quota, or free space, and retry (nothing was stored)');
    expect(scaleOutFullError(s3Error('InsufficientCapacity', 507))?.message).toBe(
      'the object store\'s bucket has no space left for this upload (no capacity left: InsufficientCapacity): raise the bucket\'s or its owner\'s quota, or free space, and retry (nothing was stored)');
    expect(scaleOutFullError(s3Error('UnknownError', 507))?.code).toBe('disk_full');
  });

  it('other refusals of the object store, and a LedgerError, are left as they are', () => {
    expect(scaleOutFullError(s3Error('AccessDenied', 403))).toBeNull();
    expect(scaleOutFullError(s3Error('NoSuchBucket', 404))).toBeNull();
    // Without an S3 response, the words alone are not the object store's.
    expect(scaleOutFullError(Object.assign(new Error('x'), { name: 'QuotaExceeded' }))).toBeNull();
    expect(scaleOutFullError(new LedgerError('disk_full', 'already said', {}, { cause: pgError('53100', 'x') }))).toBeNull();
  });
});
