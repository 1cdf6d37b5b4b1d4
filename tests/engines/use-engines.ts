/**
 * What a scale-out test calls to reach the run's throwaway engines (started once per run by the
 * broker of global-setup.ts): a fresh database or a fresh bucket per suite, so suites running in
 * parallel workers never see each other's rows or objects.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { inject } from 'vitest';
import { createS3Client } from '@/lib/ledger/s3-config';
import { localesDir } from './postgres';
import type { S3Settings } from './scale-out-env';

export { s3Env, scaleOutEnv, type S3Settings } from './scale-out-env';

async function ask<T>(engine: 'postgres' | 'radosgw'): Promise<T> {
  const response = await fetch(`${inject('enginesBroker')}/${engine}`);
  if (!response.ok) throw new Error(await response.text());
  return (await response.json()) as T;
}

/** The run's PostgreSQL 15 (superuser `lineage`, trust auth, loopback). */
export function usePostgres(): Promise<{ url: string; dir?: string }> {
  return ask('postgres');
}

/** The run's radosgw (one S3 user; path-style addressing). */
export function useRadosgw(): Promise<S3Settings> {
  return ask('radosgw');
}

const execFileAsync = promisify(execFile);

/**
 * The locale `name` (`de_DE.UTF-8`: language_TERRITORY.UTF-8) compiled into the run's server's
 * LOCPATH (postgres.ts `localesDir`) unless it is there: glibc's `localedef` from the locale's
 * source in /usr/share/i18n (Debian's `locales` package, which .ci/run installs). Compiled aside and
 * renamed into place, so test files asking at once never see half a locale.
 */
async function serverLocale(dir: string, name: string): Promise<void> {
  const target = path.join(localesDir(dir), name);
  if (fs.existsSync(path.join(target, 'LC_MESSAGES'))) return;
  const [source, charmap] = name.split('.') as [string, string | undefined];
  if (!fs.existsSync(path.join('/usr/share/i18n/locales', source))) {
    throw new Error(`the locale source /usr/share/i18n/locales/${source} is missing: install Debian's locales package (.ci/run does)`);
  }
  const staging = fs.mkdtempSync(path.join(localesDir(dir), '.staging-'));
  try {
    await execFileAsync('localedef', ['-i', source, '-f', charmap ?? 'UTF-8', path.join(staging, name)]);
    fs.chmodSync(path.join(staging, name), 0o755);
    try {
      fs.renameSync(path.join(staging, name), target);
    } catch (error) {
      // Another test file compiled it first: theirs is the same.
      if (!fs.existsSync(path.join(target, 'LC_MESSAGES'))) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * A new, empty database on the run's PostgreSQL; its URL. With `lcMessages` (a locale such as
 * `de_DE.UTF-8`) its sessions get PostgreSQL's messages in that language (ALTER DATABASE … SET
 * lc_messages), as from a server configured for another language.
 */
export async function freshDatabase(options: { lcMessages?: string } = {}): Promise<string> {
  const { url, dir } = await usePostgres();
  const name = `t_${randomBytes(6).toString('hex')}`;
  if (options.lcMessages !== undefined) {
    if (!/^[a-z]{2,3}_[A-Z]{2}\.UTF-8$/.test(options.lcMessages)) throw new Error(`not a locale name like de_DE.UTF-8: ${options.lcMessages}`);
    if (dir === undefined) throw new Error('the run\'s PostgreSQL gave no directory to compile a locale into');
    await serverLocale(dir, options.lcMessages);
  }
  const admin = new pg.Client(url);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    if (options.lcMessages !== undefined) await admin.query(`ALTER DATABASE ${name} SET lc_messages = '${options.lcMessages}'`);
  } finally {
    await admin.end();
  }
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

/** An SDK client for the run's radosgw, with the settings radosgw needs. */
export function testS3Client(settings: S3Settings): S3Client {
  return createS3Client(
    { endpoint: settings.endpoint, region: settings.region, forcePathStyle: true },
    { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
  );
}

/** A new, empty bucket on the run's radosgw; its name and the gateway's settings. */
export async function freshBucket(): Promise<{ bucket: string; settings: S3Settings }> {
  const settings = await useRadosgw();
  const bucket = `t-${randomBytes(6).toString('hex')}`;
  const client = testS3Client(settings);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return { bucket, settings };
}
