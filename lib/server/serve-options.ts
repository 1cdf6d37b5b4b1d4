import { resolveDataDir } from '@/lib/ledger/data-dir';
import type { ServerLimits } from './limits';

/** Environment variables as read here. */
type Env = Record<string, string | undefined>;

/** Flags of `lineage serve` as commander hands them over. */
export interface ServeFlags {
  port?: string;
  host?: string;
  data?: string;
  ui?: boolean;
}

/** Resolved settings: port `--port` › `PORT` › 3000; host `--host` › 127.0.0.1; data `--data` › `LINEAGE_DATA` › `./data`. */
export interface ServeSettings {
  port: number;
  host: string;
  dataDir: string;
  ui: boolean;
  limits: Partial<ServerLimits>;
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

/** Turns flags and environment into settings; throws with a message naming the bad input. */
export function resolveServeSettings(flags: ServeFlags, env: Env = process.env): ServeSettings {
  const port = flags.port !== undefined ? parsePort(flags.port, '--port') : env.PORT ? parsePort(env.PORT, 'PORT') : 3000;
  const maxBodyBytes = byteLimit(env, 'LINEAGE_MAX_BODY_BYTES');
  const maxUploadBytes = byteLimit(env, 'LINEAGE_MAX_UPLOAD_BYTES');
  return {
    port,
    host: flags.host && flags.host.length > 0 ? flags.host : '127.0.0.1',
    dataDir: resolveDataDir(flags.data, env as NodeJS.ProcessEnv),
    ui: flags.ui !== false && env.LINEAGE_NO_UI !== '1',
    limits: {
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(maxUploadBytes !== undefined ? { maxUploadBytes } : {}),
    },
  };
}
