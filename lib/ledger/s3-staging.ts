/**
 * The staging prefix of the S3 backend (`<prefix>/staging/<upload id>`): where the protocol's
 * presigned uploads land before confirm. A client PUTs straight to S3 with a presigned URL; a
 * presigned PUT cannot cap the size, so confirm checks it with HEAD before reading the bytes; the
 * ingest then writes the final blob with its own conditional PutObject (never a copy), and the
 * staged object is deleted. Nothing here is ever a ledger blob.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { LedgerError } from './errors';
import type { S3Location } from './s3-config';
import { areaPrefix, s3Status } from './s3-blob-store';

export interface Staging {
  client: S3Client;
  location: S3Location;
}

const UPLOAD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/;

/** The object key of upload `uploadId` (ids are the pending uploads' UUIDs). */
export function stagingKey(location: S3Location, uploadId: string): string {
  if (!UPLOAD_ID.test(uploadId)) throw new LedgerError('invalid_input', `bad upload id "${uploadId}"`);
  return areaPrefix(location, 'staging') + uploadId;
}

/** A presigned PUT into the staging prefix, valid `expiresInSeconds` (SigV4: the server checks it). */
export async function presignStagingPut(params: Staging & { uploadId: string; expiresInSeconds: number }): Promise<{ url: string; key: string }> {
  const key = stagingKey(params.location, params.uploadId);
  const url = await getSignedUrl(params.client, new PutObjectCommand({ Bucket: params.location.bucket, Key: key }), {
    expiresIn: params.expiresInSeconds,
  });
  return { url, key };
}

/** The staged object's size from HEAD, or null when nothing was uploaded (yet). */
export async function stagedSize(params: Staging & { uploadId: string }): Promise<number | null> {
  try {
    const head = await params.client.send(new HeadObjectCommand({
      Bucket: params.location.bucket, Key: stagingKey(params.location, params.uploadId),
    }));
    return head.ContentLength ?? 0;
  } catch (error) {
    if (s3Status(error) === 404) return null;
    throw error;
  }
}

/**
 * Confirm's first step: the staged object exists and is exactly `expectedSize` bytes (at most
 * `maxBytes` when the size was not declared), checked with HEAD before any byte is read.
 */
export async function checkStagedUpload(params: Staging & { uploadId: string; expectedSize?: number; maxBytes: number }): Promise<number> {
  const size = await stagedSize(params);
  if (size === null) throw new LedgerError('invalid_input', `upload ${params.uploadId} has no bytes: PUT them to the upload URL first`);
  if (params.expectedSize !== undefined && size !== params.expectedSize) {
    throw new LedgerError('invalid_input', `upload ${params.uploadId} holds ${size} bytes, ${params.expectedSize} were declared`);
  }
  if (size > params.maxBytes) throw new LedgerError('invalid_input', `upload ${params.uploadId} holds ${size} bytes, more than the limit ${params.maxBytes}`);
  return size;
}

/**
 * The staged bytes (after `checkStagedUpload`). With `maxBytes`, at most `maxBytes + 1` are read (a
 * ranged GET) and more than `maxBytes` is refused: the presigned PUT URL stays valid until it expires,
 * so the object may have been replaced by a larger one after the HEAD that checked its size.
 */
export async function readStaged(params: Staging & { uploadId: string; maxBytes?: number }): Promise<Uint8Array> {
  const { maxBytes } = params;
  let bytes: Uint8Array;
  try {
    const object = await params.client.send(new GetObjectCommand({
      Bucket: params.location.bucket, Key: stagingKey(params.location, params.uploadId),
      ...(maxBytes === undefined ? {} : { Range: `bytes=0-${maxBytes}` }),
    }));
    if (!object.Body) throw new Error(`GetObject of upload ${params.uploadId} returned no body`);
    bytes = await object.Body.transformToByteArray();
  } catch (error) {
    if (s3Status(error) === 404) throw new LedgerError('invalid_input', `upload ${params.uploadId} has no bytes`);
    // A range of an empty object is unsatisfiable: it holds no bytes to refuse.
    if (s3Status(error) === 416) return new Uint8Array(0);
    throw error;
  }
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
    throw new LedgerError('invalid_input', `upload ${params.uploadId} holds more than the limit ${maxBytes} bytes`);
  }
  return bytes;
}

/** Removes the staged object (idempotent). */
export async function deleteStaged(params: Staging & { uploadId: string }): Promise<void> {
  await params.client.send(new DeleteObjectCommand({ Bucket: params.location.bucket, Key: stagingKey(params.location, params.uploadId) }));
}

/**
 * Every object in the staging prefix that is an upload's (`<prefix>/staging/<upload id>`), with when
 * it was stored. Only that prefix is listed: nothing here ever names a final key.
 */
export async function listStaged(params: Staging): Promise<{ uploadId: string; lastModified: Date | null }[]> {
  const prefix = areaPrefix(params.location, 'staging');
  const staged: { uploadId: string; lastModified: Date | null }[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await params.client.send(new ListObjectsV2Command({ Bucket: params.location.bucket, Prefix: prefix, ContinuationToken }));
    for (const object of page.Contents ?? []) {
      const uploadId = object.Key?.slice(prefix.length) ?? '';
      if (UPLOAD_ID.test(uploadId)) staged.push({ uploadId, lastModified: object.LastModified ?? null });
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return staged;
}
