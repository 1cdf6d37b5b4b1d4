'use strict';
// `lineage sync` through a running `lineage watch` (lib/cli/resident.ts): the watch process keeps
// the sync's code compiled and its target open, so a sync it runs costs what a sync costs in a warm
// process, not a cold start. This file is all a `lineage sync` process loads before it knows
// whether one serves it: Node's own modules only, no bundle.
//
// Each watch listens on `$ALF_HOME/.alf/run/watch-<pid>.sock` (the directory is the user's own,
// mode 0700: anything else there is not trusted, and nothing is tried). The request is the sync's
// arguments, working directory and environment; a watch accepts only the very sync it was started
// for (the same runtime, workspace, target and settings, compared after resolving paths), run by
// the same sources (the bin's stamp of them), and declines anything else. Declined, refused, or not answered within a second, the next socket is
// tried, and in the end the sync runs in this process. A watch that goes away after it accepted
// (killed mid-sync) leaves a sync that any sync recovers from (lib/sync/recover.ts): it runs here.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const RESIDENT_PROTOCOL = 1;
/** How long a socket may take to accept or decline before the next is tried. */
const ANSWER_MS = 1000;

/** The directory the watches' sockets are in: `$ALF_HOME/.alf/run` (ALF_HOME defaults to HOME). */
function residentRunDir(env = process.env) {
  return path.join(env.ALF_HOME || env.HOME || os.homedir(), '.alf', 'run');
}

/** Whether `dir` is a directory (not a link to one) that is this user's own and nobody else's to enter. */
function isTrustedRunDir(dir) {
  let stat;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return false;
  }
  const ownUid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  return stat.isDirectory() && stat.uid === ownUid && (stat.mode & 0o077) === 0;
}

/** The watches' sockets in `dir` when it is trusted (`isTrustedRunDir`), else none. */
function trustedSockets(dir) {
  if (!isTrustedRunDir(dir)) return [];
  return fs.readdirSync(dir).filter((name) => /^watch-\d+\.sock$/.test(name)).sort().map((name) => path.join(dir, name));
}

/** Whether it is known that no process has this pid (signal 0 answers ESRCH; lib/core/process-alive.ts `processGone`). */
function pidGone(pid) {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}

/**
 * Removes from `dir` (when trusted: `isTrustedRunDir`) the sockets of watches that are gone: a
 * `watch-<pid>.sock` that is a socket and whose pid no process has (a watch killed with SIGKILL,
 * or the machine restarted, leaves its socket). A live watch's socket is never removed; nor one
 * whose pid another process took since (nobody answers it: it is declined, and removed once that
 * process is gone). Returns the sockets removed.
 */
function removeGoneSockets(dir) {
  const removed = [];
  try {
    if (!isTrustedRunDir(dir)) return removed;
    for (const name of fs.readdirSync(dir)) {
      const match = /^watch-(\d+)\.sock$/.exec(name);
      const pid = match ? Number(match[1]) : 0;
      if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !pidGone(pid)) continue;
      const socket = path.join(dir, name);
      try {
        if (!fs.lstatSync(socket).isSocket()) continue;
        fs.unlinkSync(socket);
        removed.push(socket);
      } catch {
        // Removed meanwhile (another process cleaning up too), or not ours to remove: left.
      }
    }
  } catch {
    // An unreadable run directory: nothing removed.
  }
  return removed;
}

/**
 * Asks one socket to run the sync. Resolves `{ code }` once a watch ran it (its output relayed),
 * `{ declined: why }` when it does not serve this sync or cannot be reached (with `watching: { pid,
 * target }` when a probe reached a watch of the same workspace to another target), and `{ lost: pid }`
 * when it accepted and went away before it finished.
 */
function askResident(socket, request, io = { stdout: process.stdout, stderr: process.stderr }) {
  return new Promise((resolve) => {
    let accepted = null;
    let buffered = '';
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(result);
    };
    // node:net (and the streams under it, ~2 ms of CPU) only once there is a socket to ask: a sync
    // that no watch serves, the usual one, never loads it.
    const conn = require('node:net').createConnection(socket);
    const timer = setTimeout(() => finish({ declined: 'no answer' }), ANSWER_MS);
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify(request)}\n`));
    conn.on('error', (error) => finish(accepted === null ? { declined: error.code ?? error.message } : { lost: accepted }));
    conn.on('close', () => finish(accepted === null ? { declined: 'closed' } : { lost: accepted }));
    conn.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          return finish(accepted === null ? { declined: 'not a watch' } : { lost: accepted });
        }
        if (message.t === 'decline') {
          // A probe of a watch of the same workspace to another target is told that watch's pid and target.
          const w = message.watching;
          const watching = w !== null && typeof w === 'object' && Number.isSafeInteger(w.pid) && typeof w.target === 'string' ? { pid: w.pid, target: w.target } : undefined;
          return finish(watching ? { declined: String(message.why), watching } : { declined: String(message.why) });
        }
        if (message.t === 'accept') {
          accepted = Number(message.pid);
          clearTimeout(timer);
        } else if (accepted === null) {
          return finish({ declined: 'not a watch' });
        } else if (message.t === 'err') {
          io.stderr.write(String(message.text));
        } else if (message.t === 'out') {
          io.stdout.write(String(message.text));
        } else if (message.t === 'exit') {
          return finish({ code: Number(message.code) });
        }
      }
    });
  });
}

/**
 * The request a watch is asked to run: this process's sync arguments, cwd and environment, and the
 * stamp of the sources it runs (a watch started from other sources declines: bin/cli-bundle.cjs `sourceStamp`).
 */
function residentRequest(argv, { cwd = process.cwd(), env = process.env, probe = false, stamp = null } = {}) {
  return { v: RESIDENT_PROTOCOL, argv, cwd, env: { ...env }, probe, stamp };
}

/**
 * `lineage sync ARGS` served by a running watch: resolves its exit code, or null when none served
 * it (the caller then syncs in this process). `LINEAGE_RESIDENT=0` asks no watch.
 */
async function syncThroughResident(argv, env = process.env, stamp = null) {
  if (env.LINEAGE_RESIDENT === '0') return null;
  let sockets;
  try {
    const dir = residentRunDir(env);
    removeGoneSockets(dir);
    sockets = trustedSockets(dir);
  } catch {
    return null; // an unreadable run directory: no watch to ask
  }
  if (sockets.length === 0) return null;
  const request = residentRequest(argv, { env, stamp });
  for (const socket of sockets) {
    const answer = await askResident(socket, request);
    if ('code' in answer) return answer.code;
    if ('lost' in answer) {
      process.stderr.write(`lineage: the watch (pid ${answer.lost}) that was running this sync stopped before it finished; syncing in this process\n`);
      return null;
    }
  }
  return null;
}

exports.RESIDENT_PROTOCOL = RESIDENT_PROTOCOL;
exports.residentRunDir = residentRunDir;
exports.isTrustedRunDir = isTrustedRunDir;
exports.trustedSockets = trustedSockets;
exports.removeGoneSockets = removeGoneSockets;
exports.askResident = askResident;
exports.residentRequest = residentRequest;
exports.syncThroughResident = syncThroughResident;
