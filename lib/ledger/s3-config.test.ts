import { describe, expect, it } from 'vitest';
import { parseBlobUrl, s3SettingsFrom } from './s3-config';

describe('LINEAGE_BLOB_URL and the S3 settings', () => {
  it('parses s3://bucket and s3://bucket/prefix, trimming a trailing slash', () => {
    expect(parseBlobUrl('s3://lineage-blobs')).toEqual({ bucket: 'lineage-blobs', prefix: '' });
    expect(parseBlobUrl('s3://lineage-blobs/')).toEqual({ bucket: 'lineage-blobs', prefix: '' });
    expect(parseBlobUrl('s3://lineage.blobs/team/prod/')).toEqual({ bucket: 'lineage.blobs', prefix: 'team/prod' });
  });

  it('refuses other schemes, bad bucket names and unsafe prefixes with a message naming the variable', () => {
    for (const bad of ['https://x/y', 'lineage', 's3://', 's3://Upper', 's3://ab', 's3://a..b', 's3://ok-bucket/../x', 's3://ok-bucket/a//b']) {
      expect(() => parseBlobUrl(bad), bad).toThrow(/LINEAGE_BLOB_URL/);
    }
  });

  it('is null without LINEAGE_BLOB_URL (the embedded filesystem store)', () => {
    expect(s3SettingsFrom({})).toBeNull();
    expect(s3SettingsFrom({ LINEAGE_BLOB_URL: '', AWS_REGION: 'eu-west-1' })).toBeNull();
  });

  it('takes the endpoint from AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL, the region from AWS_REGION, path style from the flag', () => {
    expect(s3SettingsFrom({
      LINEAGE_BLOB_URL: 's3://b-1/p', AWS_ENDPOINT_URL: 'http://127.0.0.1:1', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:2',
      AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-west-2', LINEAGE_S3_FORCE_PATH_STYLE: '1',
    })).toEqual({ bucket: 'b-1', prefix: 'p', endpoint: 'http://127.0.0.1:2', region: 'eu-west-1', forcePathStyle: true });
    expect(s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://b-1', AWS_ENDPOINT_URL: 'http://127.0.0.1:1', AWS_DEFAULT_REGION: 'us-west-2' }))
      .toEqual({ bucket: 'b-1', prefix: '', endpoint: 'http://127.0.0.1:1', region: 'us-west-2', forcePathStyle: false });
    expect(s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://b-1' })).toMatchObject({ endpoint: undefined, region: 'us-east-1' });
  });

  it('LINEAGE_S3_IDLE_SECONDS: whole seconds from 1 to 3600, unset by default (the client then uses DEFAULT_S3_IDLE_SECONDS)', () => {
    expect(s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://bucket-1', LINEAGE_S3_IDLE_SECONDS: '15' })?.idleSeconds).toBe(15);
    expect(s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://bucket-1' })?.idleSeconds).toBeUndefined();
    for (const bad of ['0', '1.5', 'soon', '3601']) {
      expect(() => s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://bucket-1', LINEAGE_S3_IDLE_SECONDS: bad }), bad).toThrow(/LINEAGE_S3_IDLE_SECONDS/);
    }
  });

  it('fails loudly on a bad flag or endpoint, naming the variable', () => {
    expect(() => s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://b-1', LINEAGE_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/LINEAGE_S3_FORCE_PATH_STYLE/);
    expect(() => s3SettingsFrom({ LINEAGE_BLOB_URL: 's3://b-1', AWS_ENDPOINT_URL_S3: 'not a url' })).toThrow(/AWS_ENDPOINT_URL_S3/);
  });
});
