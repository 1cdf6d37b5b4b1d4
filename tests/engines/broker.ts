/**
 * The engines broker: a loopback HTTP endpoint in the vitest main process that starts each
 * throwaway engine at most once per run, on the first request for it (or earlier, in the
 * background, when a selected test file is known to need it), and stops them at teardown.
 * Test files run in forked workers; the broker is how they share one PostgreSQL and one radosgw.
 */
import http from 'node:http';
import { startPostgres, type RunningPostgres } from './postgres';
import { startRadosgw, type RunningRadosgw } from './radosgw';

export type EngineName = 'postgres' | 'radosgw';

interface Running { postgres: RunningPostgres; radosgw: RunningRadosgw }

export interface EnginesBroker {
  url: string;
  /** Starts the engine now (in the background) if it is not started yet. */
  warm(name: EngineName): void;
  /** The engines started (or starting) so far. */
  started(): EngineName[];
  close(): Promise<void>;
}

/** What a test receives: the connection settings and the directory (its logs), never the stop function. */
function publicView(name: EngineName, engine: RunningPostgres | RunningRadosgw): object {
  if (name === 'postgres') return { url: (engine as RunningPostgres).url, dir: engine.dir };
  const { endpoint, region, accessKeyId, secretAccessKey, dir } = engine as RunningRadosgw;
  return { endpoint, region, accessKeyId, secretAccessKey, dir };
}

export async function startEnginesBroker(): Promise<EnginesBroker> {
  const starts: { [K in EngineName]?: Promise<Running[K]> } = {};
  const start = (name: EngineName): Promise<RunningPostgres | RunningRadosgw> => {
    if (name === 'postgres') return (starts.postgres ??= startPostgres());
    return (starts.radosgw ??= startRadosgw());
  };
  const server = http.createServer((request, response) => {
    const name = request.url?.slice(1);
    if (name !== 'postgres' && name !== 'radosgw') {
      response.writeHead(404).end(`unknown engine ${name}`);
      return;
    }
    start(name).then(
      (engine) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(publicView(name, engine))),
      (error: unknown) => response.writeHead(503).end(`${name} failed to start: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('engines broker has no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    warm(name) {
      start(name).catch(() => undefined);
    },
    started: () => (Object.keys(starts) as EngineName[]).sort(),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      const started = await Promise.allSettled(Object.values(starts));
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    },
  };
}
