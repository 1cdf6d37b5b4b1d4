/**
 * The staging prefix of the S3 backend (`<prefix>/staging/<upload id>`): where the protocol's
 * presigned uploads land before confirm. A client PUTs straight to S3 with a presigned URL; a
 * presigned PUT cannot cap the size, so confirm asks for at most one byte over the limit and checks
 * the whole size in the ranged GET's answer before reading its body; the ingest then writes the
 * final blob with its own conditional PutObject (never a copy), and the staged object is deleted.
 * Nothing here is ever a ledger blob.
 */
import {
  DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type GetObjectCommandOutput, type S3Client,
} from '@aws-sdk/client-s3';
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
 * The staged bytes, or null when nothing was uploaded (yet). With `maxBytes`, one ranged GET of at
 * most `maxBytes + 1` bytes: a presigned PUT cannot cap the size, and its URL stays valid until it
 * expires, so the object read is the one checked. Its whole size (`Content-Range`) is checked before
 * the body is read, and a larger upload is refused `payload_too_large` (413) with the body left unread.
 */
export async function readStaged(params: Staging & { uploadId: string; maxBytes?: number }): Promise<Uint8Array | null> {
  const { maxBytes, uploadId } = params;
  let object: GetObjectCommandOutput;
  try {
    object = await params.client.send(new GetObjectCommand({
      Bucket: params.location.bucket, Key: stagingKey(params.location, uploadId),
      ...(maxBytes === undefined ? {} : { Range: `bytes=0-${maxBytes}` }),
    }));
  } catch (error) {
    if (s3Status(error) === 404) return null;
    // A range of an empty object is unsatisfiable: it holds no bytes to refuse.
    if (s3Status(error) === 416) return new Uint8Array(0);
    throw error;
  }
  if (!object.Body) throw new Error(`GetObject of upload ${uploadId} returned no body`);
  // `bytes 0-N/SIZE`; a store that ignored the range sent the whole object, its length the size.
  const total = Number(/\/(\d+)$/.exec(object.ContentRange ?? '')?.[1] ?? (object.ContentRange ? NaN : object.ContentLength));
  if (maxBytes !== undefined && total > maxBytes) {
    (object.Body as { destroy?: () => void }).destroy?.();
    throw new LedgerError('payload_too_large', `upload ${uploadId} holds ${total} bytes, more than the limit ${maxBytes}`);
  }
  const bytes = await object.Body.transformToByteArray();
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
    throw new LedgerError('payload_too_large', `upload ${uploadId} holds more than the limit ${maxBytes} bytes`);
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
