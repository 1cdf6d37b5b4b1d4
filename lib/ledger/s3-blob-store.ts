/**
 * `BlobStore` on S3-compatible object storage (the scale-out backend). Final blobs live under
 * `<prefix>/blobs/<key>`; uploads in flight under `<prefix>/staging/` (s3-staging.ts), the only
 * place multipart or copy may ever write. A final key is written exactly once, with a single
 * `PutObject` carrying `If-None-Match: *`: the server keeps the first bytes, whoever wins, so two
 * processes racing on one key can never leave a mix. A 412 is success when the stored bytes are
 * ours (a retried upload) and a loud `BlobConflictError` otherwise.
 */
import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { sha256Hex } from '@/lib/core/uuid';
import { assertBlobKey, type BlobStore } from './blob-store';
import { LedgerError } from './errors';
import type { S3Location } from './s3-config';

/**
 * A final key already holds other bytes. Never expected from our own writers (keys carry the
 * bytes' sha256 prefix): it means another writer or a hand edit, so nothing is overwritten.
 */
export class BlobConflictError extends LedgerError {
  constructor(key: string, storedSha: string, offeredSha: string) {
    super('blob_conflict', `blob ${key} already holds other bytes (sha256 ${storedSha}); refusing to replace them with sha256 ${offeredSha}`);
    this.name = 'BlobConflictError';
  }
}

/** The HTTP status of an SDK failure, if it was one. */
export function s3Status(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

/** `<prefix>/<area>/` or `<area>/` when the service owns the whole bucket. */
export function areaPrefix(location: S3Location, area: 'blobs' | 'staging'): string {
  return location.prefix === '' ? `${area}/` : `${location.prefix}/${area}/`;
}

export class S3BlobStore implements BlobStore {
  private readonly base: string;

  private readonly listPageSize: number | undefined;

  /** `listPageSize`: keys per ListObjectsV2 page (the server's default, 1000, when unset). */
  constructor(readonly client: S3Client, readonly location: S3Location, options: { listPageSize?: number } = {}) {
    this.base = areaPrefix(location, 'blobs');
    this.listPageSize = options.listPageSize;
  }

  /** The object key that holds `key`. */
  objectKey(key: string): string {
    assertBlobKey(key);
    return this.base + key;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.objectKey(key);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(new PutObjectCommand({
          Bucket: this.location.bucket, Key, Body: bytes, ContentLength: bytes.byteLength, IfNoneMatch: '*',
          ContentType: 'application/zip',
        }));
        return;
      } catch (error) {
        const status = s3Status(error);
        // AWS answers 409 ConditionalRequestConflict to a conditional write racing another: retry.
        if (status === 409 && attempt < 5) continue;
        if (status !== 412) throw error;
      }
      const stored = sha256Hex(await this.get(key));
      const offered = sha256Hex(bytes);
      if (stored !== offered) throw new BlobConflictError(key, stored, offered);
      return;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      if (!object.Body) throw new Error(`GetObject ${key} returned no body`);
      return await object.Body.transformToByteArray();
    } catch (error) {
      if (s3Status(error) === 404) {
        throw new LedgerError('blob_missing', `blob ${key} is missing from s3://${this.location.bucket}/${this.base}`);
      }
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (error) {
      if (s3Status(error) === 404) return false;
      throw error;
    }
  }

  /**
   * When the object was stored, or null when it is not there: what `lineage doctor --repair` gives
   * an entry it re-ingests as its sync time (lib/storage/consistency.ts `storedAt`). The bucket
   * listing's LastModified first — an ISO 8601 time with milliseconds on radosgw, as the embedded
   * store's file mtime has them —, HEAD's Last-Modified only when the listing does not name the
   * object: an HTTP date, whole seconds (a recovered entry's time fell up to a second before the
   * blob's write, possibly before the entry ahead of it).
   */
  async lastModified(key: string): Promise<Date | null> {
    const objectKey = this.objectKey(key);
    const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: objectKey, MaxKeys: 1 }));
    // The key itself comes first among those it prefixes (byte order), when it is there.
    const listed = page.Contents?.[0];
    if (listed?.Key === objectKey && listed.LastModified) return listed.LastModified;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
      return head.LastModified ?? null;
    } catch (error) {
      if (s3Status(error) === 404) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  /** Every key starting with `prefix`, in byte order (ListObjectsV2, page after page). */
  async list(prefix = ''): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({
        Bucket: this.location.bucket, Prefix: this.base + prefix, ContinuationToken, MaxKeys: this.listPageSize,
      }));
      for (const object of page.Contents ?? []) {
        if (object.Key) keys.push(object.Key.slice(this.base.length));
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys.sort();
  }

  /** A presigned GET of `key` for a client to download directly, valid `expiresInSeconds`. */
  presignDownload(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }), {
      expiresIn: expiresInSeconds,
    });
  }
}
