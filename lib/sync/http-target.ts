import { sha256Hex } from '@/lib/core/uuid';
import { AgentIdTakenError, AlfApiClient, AlfApiError, SyncConflictError as HttpConflict } from '@/lib/client/alf-api';
import { REFUSED_UPLOAD_HINT, SupersededBaseError, SyncConflictError, SyncError, UNREACHABLE_RETRY_SECONDS } from './errors';
import { refusedWhole, undoRefusedFirstSnapshot } from './first-snapshot-undo';
import type { LatestEntry, RestoreBundle, SyncTarget } from './target';
import { serverIdentity } from './target-mark';

/**
 * A sync target that speaks the ALF HTTP protocol (ours or any compatible service). `command`: what
 * the user ran (`lineage sync`, `lineage sync --rebase`, `lineage restore`, `lineage watch`), which
 * a refused key's error names — not the request that met the refusal (a sync's first request may be
 * the restore plan its state is checked against). A first snapshot the server refuses whole has this
 * target's registration undone (first-snapshot-undo.ts; `refusedWholeStatus` says which answers are).
 */
export function httpTarget(args: { baseUrl: string; apiKey: string; command?: string }): SyncTarget {
  const client = new AlfApiClient({ baseUrl: args.baseUrl, apiKey: args.apiKey });
  const asked: Asked = { command: args.command ?? null, server: args.baseUrl };
  const mapErrors = <T>(failed: FailedCode, fn: () => Promise<T>): Promise<T> => mapped(asked, failed, fn);
  return undoRefusedFirstSnapshot({
    label: args.baseUrl,
    identity: serverIdentity(args.baseUrl, args.apiKey),
    flags: `--server ${args.baseUrl} --key KEY`,
    ensureAgent: (agent) =>
      mapErrors('registration_failed', async () => {
        // `alreadyExisted` false: the server answered 201.
        const { agent: info, alreadyExisted } = await client.register({ id: agent.id, name: agent.name, source_runtime: agent.runtime });
        // AgentInfo says 0 before the first upload too (CONTRACT §1.2): an agent registered by a
        // first sync killed before its upload has no history to guard.
        if (alreadyExisted && info.latest_sequence === 0 && !(await client.restore(agent.id).then(() => true, (error: unknown) => {
          if (error instanceof AlfApiError && error.status === 404) return false;
          throw error;
        }))) {
          return { alreadyExisted, latestSequence: null };
        }
        return { alreadyExisted, latestSequence: info.latest_sequence };
      }),
    putSnapshot: (agentId, bytes) => mapErrors('sync_upload_failed', async () => ({ sequence: (await client.putSnapshot(agentId, bytes)).sequence })),
    pushDelta: (agentId, baseSequence, bytes) =>
      mapErrors('sync_upload_failed', async () => {
        try {
          return { sequence: (await client.pushDelta(agentId, baseSequence, bytes)).sequence };
        } catch (error) {
          // A 409 whose latest is this very base: the head there was replaced by a snapshot since (ingest-base.ts).
          if (error instanceof HttpConflict && error.latest === baseSequence) throw new SupersededBaseError(baseSequence);
          if (error instanceof HttpConflict) throw new SyncConflictError(baseSequence, error.latest);
          throw error;
        }
      }),
    fetchRestore: (agentId, upToSequence) =>
      mapErrors('restore_incomplete', async (): Promise<RestoreBundle> => {
        const plan = await client.restore(agentId, { upToSequence });
        if (!plan.snapshot) throw new SyncError('restore_incomplete', `No snapshot available for agent ${agentId}`);
        const snapshot = { sequence: plan.snapshot.sequence, bytes: await client.download(plan.snapshot.url) };
        const deltas = [];
        for (const d of plan.deltas) deltas.push({ sequence: d.sequence, bytes: await client.download(d.url) });
        const sequence = upToSequence ?? Math.max(snapshot.sequence, ...deltas.map((d) => d.sequence));
        return { snapshot, deltas, sequence };
      }),
    headSequence: (agentId) =>
      mapErrors('sync_upload_failed', async () => {
        try {
          return (await client.getAgent(agentId)).latest_sequence;
        } catch (error) {
          if (error instanceof AlfApiError && error.status === 404) return null;
          throw error;
        }
      }),
    latestEntry: (agentId) =>
      mapErrors('sync_upload_failed', async (): Promise<LatestEntry | null> => {
        // The restore plan names the latest entry with a download URL (CONTRACT §1.2 #8): the last
        // delta after the latest snapshot, else that snapshot. Only that blob is downloaded.
        const plan = await client.restore(agentId).catch((error: unknown) => {
          if (error instanceof AlfApiError && error.status === 404) return null;
          throw error;
        });
        const last = plan?.deltas.at(-1);
        const link = last ? { sequence: last.sequence, url: last.url, kind: 'delta' as const } : plan?.snapshot ? { ...plan.snapshot, kind: 'snapshot' as const } : null;
        if (!link) return null;
        let bytes: Promise<Uint8Array> | undefined;
        const download = () => (bytes ??= client.download(link.url));
        return { sequence: link.sequence, kind: link.kind, bytes: download, sha256: async () => sha256Hex(await download()) };
      }),
    // Asked `if_empty`, which our server judges inside its transaction (a snapshot stored since the undo's
    // look refuses it: 409, nothing deleted); the look (`latestEntry`: no restore plan) stays for a server
    // that does not know `if_empty`.
    forgetAgent: (agentId) =>
      mapErrors('sync_upload_failed', async () => {
        await client.deleteAgent(agentId, { ifEmpty: true });
      }),
  });
}

/**
 * A server's answer that an upload was not taken, the request over: a refusal (4xx), a read-only or
 * unavailable storage (503), a full disk (507). Not a proxy's 502 or 504, nor a lost connection: the
 * server may still be ingesting what was sent.
 */
function refusedWholeStatus(error: AlfApiError): boolean {
  return (error.status >= 400 && error.status < 500) || error.status === 503 || error.status === 507;
}

/**
 * The code of a server's refusal or failure other than the coded ones (auth, not found, id taken),
 * by what was asked (CONTRACT §2.1's registry): a registration's `registration_failed`, a restore's
 * `restore_incomplete` (a restore the server refused has written nothing, and a sync's upload code
 * would send its user looking at the wrong command), anything of a sync's upload `sync_upload_failed`.
 */
export type FailedCode = 'registration_failed' | 'restore_incomplete' | 'sync_upload_failed';

/** What the user ran (null: not known, a target made outside the CLI) and the server it named. */
export interface Asked {
  command: string | null;
  server: string;
}

async function mapped<T>(asked: Asked, failed: FailedCode, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const unreachable = networkFailure(error);
    if (unreachable === BAD_PORT) {
      // Not a server out of reach, and nothing that passes by itself: no retry.
      throw new SyncError('server_unreachable', `cannot reach the server: ${BAD_PORT}`, 'the server\'s operator must set its public URL (LINEAGE_PUBLIC_URL or --public-url) to an address on another port');
    }
    if (unreachable !== null) {
      throw new SyncError('server_unreachable', `cannot reach the server: ${unreachable}`, unreachableHint(asked), UNREACHABLE_RETRY_SECONDS);
    }
    if (error instanceof AgentIdTakenError) {
      throw new SyncError('agent_id_taken', error.serverMessage, 'run `lineage sync --agent-id <new uuid> …` (e.g. with $(uuidgen)), or delete the workspace\'s .alf-agent-id and sync again');
    }
    if (error instanceof AlfApiError) {
      const refusal = serverRefusal(asked, failed, error);
      throw refusedWholeStatus(error) ? refusedWhole(refusal) : refusal;
    }
    throw error;
  }
}

/**
 * A server's answer other than the one a request expects, as the sync's error: its code by what was
 * asked, the server's words, and a hint for every status a lineage server answers (lib/server/errors.ts,
 * http-server.ts, client-errors.ts) where one helps.
 */
export function serverRefusal(asked: Asked, failed: FailedCode, error: AlfApiError): SyncError {
  if (error.status === 401 || error.status === 403) return refusedKey(asked, failed, error);
  if (error.status === 404) return new SyncError('agent_not_found', error.message);
  // The server could not take the request now (its storage busy or out of reach: a 503 with a Retry-After): the
  // same command, later. A 503 without one (a read-only data directory) is said below.
  if (error.status === 503 && error.retryAfterSeconds !== null) return new SyncError(failed, error.message, busyHint(asked, failed, error.retryAfterSeconds), error.retryAfterSeconds);
  // The server gave up on a database statement past its LINEAGE_DATABASE_READ_SECONDS (`database_timeout`), or a
  // proxy before it on the request: not a refusal of what was sent, and not retried (it would take as long).
  if (error.status === 504) return new SyncError(failed, error.message, slowHint(failed));
  const hint = statusHint(asked, failed, error);
  if (hint !== undefined) return new SyncError(failed, error.message, hint);
  // A 400 to an upload: the server refused what it holds (a bad archive) and stored nothing.
  if (failed === 'sync_upload_failed') return new SyncError(failed, error.message, error.status === 400 && /upload/.test(error.operation) ? REFUSED_UPLOAD_HINT : undefined);
  return new SyncError(failed, error.message, failed === 'restore_incomplete'
    ? 'nothing was written; check the agent and --at-sequence, or the server\'s log for an error of its own, then restore again'
    : 'nothing was uploaded; check the server\'s log for why it refused the agent, then sync again');
}

/**
 * What to do about a status that is neither the key's (401, 403), an unknown agent's (404), a busy
 * server's (503 + Retry-After), a slow one's (504) nor a refused request's (400, said by the caller):
 * undefined for a status no lineage server answers and no proxy commonly does.
 */
function statusHint(asked: Asked, failed: FailedCode, error: AlfApiError): string | undefined {
  // A watch is not run again: it goes on, and its next sync (a change, --interval, its retry) is the same again.
  const watch = asked.command === WATCH;
  const again = watch ? WATCH_GOES_ON : asked.command === null ? 'run the same command again' : `run \`${asked.command}\` again`;
  const later = watch ? WATCH_GOES_ON : `${again} later`;
  const nothing = failed === 'restore_incomplete' ? 'nothing was written here' : 'nothing was stored on the server';
  // A sync's next run uploads what this one would have: its state is as it was.
  const kept = failed === 'restore_incomplete' ? '' : ' (this machine\'s state is as it was: the next sync uploads the same changes)';
  switch (error.status) {
    case 405:
    case 415:
      return `the server at ${asked.server} does not take this request as an ALF service does: ${nothing}; check --server (the address of a lineage server, with or without /v1), then ${again}`;
    case 408:
      return `the request did not reach the server whole in time (a slow or interrupted connection): ${nothing}; ${again}`;
    case 409:
      return `what the server holds conflicts with this request (its words above) and it replaced nothing: ${nothing}; ${again}, and if the server says the same, ask its operator to look at the server's log (\`lineage doctor\` where it runs)`;
    case 413:
      return failed === 'restore_incomplete'
        ? `${nothing}; the server or a proxy before it refused the request as too large: ask the server's operator about its limits`
        : `the upload is larger than the server takes (a body over its LINEAGE_MAX_UPLOAD_BYTES or a proxy's limit, or an archive over its reader's limits): ${nothing}${kept}; ask the server's operator to raise the limit, or make the workspace's memory smaller, then ${again}`;
    case 421:
      return `the server does not answer to the host name in --server ${asked.server}: use the address it is served at (its public URL), or ask its operator to allow this name with --allowed-hosts or LINEAGE_ALLOWED_HOSTS; ${nothing}`;
    case 429:
      return `the server (or a proxy before it) refuses requests this often: ${nothing}; ${later}`;
    case 431:
      return `the request's headers are larger than the server reads (a very long --server path?): ${nothing}; check --server, then ${again}`;
    case 500:
      return `the server failed on its own (an internal error, which it logs): ${nothing}${kept}; ${again}, and if it fails again, tell the server's operator`;
    case 502:
      return `a proxy before the server could not get an answer from it (the server down or restarting?): ${nothing}${kept}; ${again} once the server is up, or tell its operator`;
    case 503:
      // Without a Retry-After: the server cannot write its data directory (read-only), or is not serving yet.
      return `the server cannot take this now (its data directory read-only, or its storage unavailable): ${nothing}${kept}; ask the server's operator to make its storage writable, then ${again}`;
    case 507:
      return `the server's disk is full: ${nothing}${kept}; ask the server's operator to free space where its data (or its database and blobs) are stored, then ${again}`;
    default:
      return undefined;
  }
}

/**
 * A 401 (the key is wrong or revoked) or a 403 (a download or upload link the server signed: expired,
 * not its signature, or issued to a key revoked since), in the words of what the user ran: the
 * request that met it (`restore`, `upload delta`, `get agent`) is not something the user asked for.
 */
function refusedKey(asked: Asked, failed: FailedCode, error: AlfApiError): SyncError {
  const ran = asked.command === null ? 'the command' : `\`${asked.command}\``;
  const said = error.serverMessage.trim() === '' ? '' : `: ${error.serverMessage}`;
  // The first request a command makes meets the refusal, before it writes anything.
  const nothing = 'nothing was stored on the server, nor written here';
  if (error.status === 403 && !/revoked/i.test(error.serverMessage)) {
    // A signed link of this very key that no longer holds: not the key; a new link is issued by the same command.
    return new SyncError(failed, `${asked.command ?? 'the command'}: the server at ${asked.server} refused a link it had signed for this request (HTTP 403${said}); ${nothing}`,
      `${asked.command === WATCH ? 'this watch goes on, and its next sync asks for a new link' : `run ${ran} again`}: the server signs a new link each time (a link that expires before it is used: a slow transfer, or the server's clock ahead)`);
  }
  const why = error.status === 403 ? 'a link it had signed for a key revoked since' : 'the API key';
  return new SyncError('auth_failed', `${asked.command ?? 'the command'}: the server at ${asked.server} refused ${why} (HTTP ${error.status}${said}); ${nothing}`,
    `the key given with --key (or ALF_API_KEY) is wrong or was revoked: ask the server's operator for the key that holds your agents now (where the server runs, \`lineage keys rotate OLD_KEY_ID\` issues one; a key from \`lineage keys create\` holds none of them until \`lineage keys hand-over\` gives them), then run ${ran} again with --key NEWKEY`);
}

/** The command a `lineage watch` names (lib/cli/commands/watch.ts, its own syncs; a sync it runs for `lineage sync` names that). */
const WATCH = 'lineage watch';
/** What a watch's sync says in place of "run it again": the watch goes on, and its own line (`whatNext`) says when it syncs next. */
const WATCH_GOES_ON = 'this watch goes on and syncs again by itself (no need to start it again)';

/** What to do after a 504: the server's (or a proxy's) time limit, not the request, is what to change. */
function slowHint(failed: FailedCode): string {
  const kept = failed === 'sync_upload_failed' ? ' (an upload it kept after all is recognised at the next sync, not sent twice)' : '';
  return `the server gave up on this request as too slow${kept}; trying again will likely take as long: `
    + 'ask the server\'s operator to raise its LINEAGE_DATABASE_READ_SECONDS (or the time limit of a proxy in front of it), then run the same command again';
}

/** What to do after a busy server's 503: run the same command again, after its Retry-After (a watch tries again by itself). */
function busyHint(asked: Asked, failed: FailedCode, retryAfterSeconds: number): string {
  const when = `in ${retryAfterSeconds} s or later (the server's Retry-After)`;
  if (asked.command === WATCH) {
    return `the server is busy: this watch tries the sync again by itself ${when}, no need to start it again; this machine's state is as it was, and an upload the server did keep is recognised at the next sync, not sent twice`;
  }
  if (failed === 'restore_incomplete') return `the server is busy and nothing was written here: run the same restore again ${when}`;
  if (failed === 'registration_failed') return `the server is busy: run the same sync again ${when}`;
  return `the server is busy: run the same sync again ${when}; this machine's state is as it was, and an upload the server did keep is recognised at the next sync, not sent twice`;
}

/**
 * What to do when the server could not be reached, or the connection broke (a server killed or
 * restarted mid-request). A `lineage sync` (any request of it: its first may be the restore plan
 * its state is checked against) is told that running it again is safe: its state is written only
 * once an upload is accepted, and an upload the server kept is adopted at the next sync, not sent
 * twice. A `watch` tries again by itself.
 */
function unreachableHint(asked: Asked): string {
  const check = 'check --server: is the service running, at that address and port, and reachable from here?';
  if (asked.command !== 'lineage sync') return check;
  return `${check} Then run the same sync again: this machine's state is as it was, and an upload the server kept before the connection broke is recognised at that sync, not sent twice`;
}

/**
 * What a request that reached no server says (fetch's `TypeError: fetch failed`, its cause a
 * socket error: refused, unknown host, reset, timed out), or null for any other error.
 */
const BAD_PORT = 'a URL the server handed out is on a port fetch refuses to connect to (a "bad port" of the Fetch standard)';

function networkFailure(error: unknown): string | null {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return null;
  const cause = (error as { cause?: unknown }).cause;
  // --server's own port is checked before (parse-options.ts): this is a URL the server handed out.
  if (cause instanceof Error && cause.message === 'bad port') return BAD_PORT;
  return cause instanceof Error && cause.message ? cause.message : 'the connection failed';
}
