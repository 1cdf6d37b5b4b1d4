import path from 'node:path';

/** The data directory: `--data` flag › `LINEAGE_DATA` › `./data`, always absolute (relative ones resolved against `cwd`). */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const chosen = flag && flag.length > 0 ? flag : env.LINEAGE_DATA && env.LINEAGE_DATA.length > 0 ? env.LINEAGE_DATA : './data';
  return path.resolve(cwd, chosen);
}
