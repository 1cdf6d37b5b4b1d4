/**
 * A throwaway PostgreSQL 15 cluster on loopback for the scale-out tests: `initdb` into a fresh
 * temp directory (as the `postgres` system user when we are root: initdb refuses root), started
 * with fsync off, trust auth and the C.UTF-8 locale (it sorts like SQLite's BINARY collation).
 * Its LOCPATH is `<dir>/locales` (`localesDir`): a locale compiled there later (use-engines.ts
 * `freshDatabase`'s `lcMessages`) can be a database's `lc_messages`, as on a server whose team reads
 * another language, without installing it system-wide.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, run, startWatchdog, traversableTempDir } from './process-tools';

const BIN = process.env.LINEAGE_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface RunningPostgres {
  /** `postgres://lineage@127.0.0.1:PORT/postgres` (trust auth, the superuser `lineage`). */
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** The command prefix that runs a PostgreSQL binary as a user allowed to run it. */
function asPostgres(binary: string, args: string[]): [string, string[]] {
  const command = path.join(BIN, binary);
  if (process.getuid?.() !== 0) return [command, args];
  return ['runuser', ['-u', 'postgres', '--', command, ...args]];
}

/** Where the server looks for locales (its LOCPATH); C.UTF-8 is glibc's own and found without it. */
export function localesDir(dir: string): string {
  return path.join(dir, 'locales');
}

export async function startPostgres(): Promise<RunningPostgres> {
  if (!fs.existsSync(path.join(BIN, 'initdb'))) throw new Error(`PostgreSQL binaries not found in ${BIN} (set LINEAGE_PG_BIN)`);
  const dir = traversableTempDir('lineage-pg-');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  fs.mkdirSync(localesDir(dir), { mode: 0o755 });
  await run(...asPostgres('initdb', ['-D', data, '-U', 'lineage', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']));
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    try {
      await run(...asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', '-o', options, 'start']), {
        env: { ...process.env, LOCPATH: localesDir(dir) },
      });
      break;
    } catch (error) {
      // Another process may have taken the port between the probe and the start.
      if (attempt >= 2) throw error;
    }
  }
  const [stopCommand, stopArgs] = asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  // SIGQUIT to the postmaster is pg_ctl's immediate stop, and needs no data directory: the
  // orphan's directory may be gone already (the run's temp root is removed by its own teardown).
  const postmaster = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const watchdog = startWatchdog(`kill -QUIT ${postmaster} 2>/dev/null; rm -rf ${dir}`);
  let stopped = false;
  return {
    url: `postgres://lineage@127.0.0.1:${port}/postgres`,
    dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      watchdog.cancel();
      await run(stopCommand, stopArgs).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
