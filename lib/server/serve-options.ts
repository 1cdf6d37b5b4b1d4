import { unsafePortReason, urlPort } from '@/lib/client/unsafe-ports';
import { echoInput } from '@/lib/core/echo';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { parseAllowedHosts } from './hosts';
import { parseTrustedProxies } from './trusted-proxy';
import type { ServerLimits } from './limits';

/** Environment variables as read here. */
type Env = Record<string, string | undefined>;

/** Flags of `lineage serve` as commander hands them over. */
export interface ServeFlags {
  port?: string;
  host?: string;
  data?: string;
  ui?: boolean;
  auth?: string;
  allowedHosts?: string;
  publicUrl?: string;
  trustProxy?: string;
}

/** Resolved settings: port `--port` › `PORT` › 3000; host `--host` › 127.0.0.1; data `--data` › `LINEAGE_DATA` › `./data`. */
export interface ServeSettings {
  port: number;
  host: string;
  dataDir: string;
  ui: boolean;
  limits: Partial<ServerLimits>;
  /** `--auth` › `LINEAGE_AUTH`: `required` asks for sign-in on loopback too; `auto` (default) only on other binds. */
  auth: 'auto' | 'required';
  /** `--allowed-hosts` › `LINEAGE_ALLOWED_HOSTS` (comma-separated). */
  allowedHosts: string[];
  /** `--public-url` › `LINEAGE_PUBLIC_URL`: the origin of the signed URLs handed out. */
  publicUrl?: string;
  /** `--trust-proxy` › `LINEAGE_TRUST_PROXY` (comma-separated addresses or CIDR ranges): proxies whose `X-Forwarded-For` names the client. */
  trustProxy: string[];
  /** `LINEAGE_SESSION_DAYS` (default 7). */
  sessionTtlSeconds?: number;
  /** `LINEAGE_REQUEST_TIMING_LOG`: a file each request's server time is appended to (off by default). */
  requestTimingLog?: string;
}

function parseAuth(text: string | undefined, source: string): 'auto' | 'required' {
  if (text === undefined || text === '' || text === 'auto') return 'auto';
  if (text === 'required') return 'required';
  throw new Error(`${source} must be "required" or "auto", got "${text}"`);
}

function parsePublicUrl(text: string | undefined, source: string): string | undefined {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${source} must be an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${source} must be an http(s) URL, got "${text}"`);
  // The signed URLs built from it would be refused by every client before it connects.
  const unsafe = unsafePortReason(urlPort(url));
  if (unsafe !== null) throw new Error(`${source} ${text}: ${unsafe}; the signed download and upload URLs built from it could not be fetched`);
  return url.origin;
}

function parseSessionDays(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1) throw new Error(`LINEAGE_SESSION_DAYS must be a whole number of days ≥ 1, got "${text}"`);
  return Number(text) * 24 * 60 * 60;
}

function parsePort(text: string, source: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`${source} must be a port number 0-65535, got "${text}"`);
  return port;
}

function byteLimit(env: Env, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1) throw new Error(`${name} must be a positive number of bytes, got "${text}"`);
  return Number(text);
}

/**
 * `LINEAGE_BODY_IDLE_SECONDS` (how long a request body may stop arriving before its 408) and
 * `LINEAGE_SOCKET_IDLE_SECONDS` (how long a reply may stop leaving before its connection is closed),
 * `LINEAGE_REQUEST_SECONDS` (how long a request the server does not read may take to arrive whole):
 * 1 to 3600 s, in ms.
 */
function idleMs(env: Env, name: 'LINEAGE_BODY_IDLE_SECONDS' | 'LINEAGE_SOCKET_IDLE_SECONDS' | 'LINEAGE_REQUEST_SECONDS'): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 3600) {
    throw new Error(`${name} must be a whole number of seconds from 1 to 3600, got "${echoInput(text)}"`);
  }
  return Number(text) * 1000;
}

/** Turns flags and environment into settings; throws with a message naming the bad input. */
export function resolveServeSettings(flags: ServeFlags, env: Env = process.env): ServeSettings {
  const port = flags.port !== undefined ? parsePort(flags.port, '--port') : env.PORT ? parsePort(env.PORT, 'PORT') : 3000;
  const maxBodyBytes = byteLimit(env, 'LINEAGE_MAX_BODY_BYTES');
  const maxUploadBytes = byteLimit(env, 'LINEAGE_MAX_UPLOAD_BYTES');
  const bodyIdleMs = idleMs(env, 'LINEAGE_BODY_IDLE_SECONDS');
  const socketIdleMs = idleMs(env, 'LINEAGE_SOCKET_IDLE_SECONDS');
  const requestTimeoutMs = idleMs(env, 'LINEAGE_REQUEST_SECONDS');
  return {
    port,
    host: flags.host && flags.host.length > 0 ? flags.host : '127.0.0.1',
    dataDir: resolveDataDir(flags.data, env as NodeJS.ProcessEnv),
    ui: flags.ui !== false && env.LINEAGE_NO_UI !== '1',
    limits: {
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(maxUploadBytes !== undefined ? { maxUploadBytes } : {}),
      ...(bodyIdleMs !== undefined ? { bodyIdleMs } : {}),
      ...(socketIdleMs !== undefined ? { socketIdleMs } : {}),
      ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    },
    auth: flags.auth !== undefined ? parseAuth(flags.auth, '--auth') : parseAuth(env.LINEAGE_AUTH, 'LINEAGE_AUTH'),
    allowedHosts: flags.allowedHosts !== undefined
      ? parseAllowedHosts(flags.allowedHosts, '--allowed-hosts')
      : parseAllowedHosts(env.LINEAGE_ALLOWED_HOSTS, 'LINEAGE_ALLOWED_HOSTS'),
    publicUrl: flags.publicUrl !== undefined ? parsePublicUrl(flags.publicUrl, '--public-url') : parsePublicUrl(env.LINEAGE_PUBLIC_URL, 'LINEAGE_PUBLIC_URL'),
    trustProxy: flags.trustProxy !== undefined
      ? parseTrustedProxies(flags.trustProxy, '--trust-proxy')
      : parseTrustedProxies(env.LINEAGE_TRUST_PROXY, 'LINEAGE_TRUST_PROXY'),
    sessionTtlSeconds: parseSessionDays(env.LINEAGE_SESSION_DAYS),
    requestTimingLog: env.LINEAGE_REQUEST_TIMING_LOG || undefined,
  };
}
