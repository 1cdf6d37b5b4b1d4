/**
 * A throwaway one-node Ceph cluster with an S3 gateway (radosgw) on loopback for the scale-out
 * tests: one mon, one memstore OSD, no mgr, no auth, pool size 1; every daemon in the foreground
 * as our child, its data and logs in a fresh temp directory removed at stop. A fake S3 server is
 * not enough: the conditional create (`If-None-Match: *`) and SigV4 checks are what we test.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  freePort, freePortRange, isRunning, run, sleep, startDaemon, startWatchdog, stopDaemon, traversableTempDir, waitFor, type Daemon,
} from './process-tools';

export interface RunningRadosgw {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  dir: string;
  stop(): Promise<void>;
}

// `tcp_nodelay=1` on the beast frontend: without it every response with a body (GetObject) waited
// ~40 ms for the client's delayed ACK (Nagle), measured 47.7 ms → 3.6 ms p50 per 1.2 KB GET
// (bench/scale-out/s3-probe.ts); a rebuild reads every blob back that way.
function cephConf(dir: string, fsid: string, monPort: number, range: { min: number; max: number }, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms bind msgr2 = false
ms bind ipv6 = false
public addr = 127.0.0.1
ms bind port min = ${range.min}
ms bind port max = ${range.max}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon max pg per osd = 1000
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 2147483648
run dir = ${dir}/run
log file = ${dir}/log/$name.log
admin socket = ${dir}/run/$name.asok
mon data = ${dir}/mon/$name
osd data = ${dir}/osd/$name
[client.rgw.t]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw dns name = localhost
`;
}

const ACCESS_KEY = 'LINEAGETESTKEY';
const SECRET_KEY = 'lineage-test-secret';

/** The OSD right after mkfs sometimes exits with "wrong fsid": start it again until it stays up. */
async function startOsd(dir: string, conf: string): Promise<Daemon> {
  for (let attempt = 1; ; attempt++) {
    const osd = startDaemon('ceph-osd', 'ceph-osd', ['-f', '-i', '0', '-c', conf], path.join(dir, 'log', 'osd.stdout'));
    await sleep(1_500);
    if (isRunning(osd)) return osd;
    if (attempt >= 5) throw new Error(`ceph-osd did not stay up after ${attempt} starts; see ${dir}/log`);
  }
}

/**
 * A one-node cluster, started afresh up to three times: a cluster of another test run on the same
 * machine can take a port between our free-port check and the daemon's bind (seen as `ceph osd new`
 * answering "EPERM: problem getting command descriptions from mon"). Each attempt has new ports and
 * a new directory, and a failed one is stopped and removed before the next.
 */
export async function startRadosgw(): Promise<RunningRadosgw> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRadosgwOnce();
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

async function startRadosgwOnce(): Promise<RunningRadosgw> {
  const dir = traversableTempDir('lineage-ceph-');
  for (const sub of ['run', 'log', 'mon', 'osd/osd.0']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  const fsid = randomUUID();
  const osdUuid = randomUUID();
  const [monPort, rgwPort, range] = [await freePort(), await freePort(), await freePortRange(40)];
  const conf = path.join(dir, 'ceph.conf');
  fs.writeFileSync(conf, cephConf(dir, fsid, monPort, range, rgwPort));
  const daemons: Daemon[] = [];
  let watchdog: { cancel(): void } | null = null;
  const guard = () => {
    watchdog?.cancel();
    watchdog = startWatchdog(`kill -9 ${daemons.map((daemon) => daemon.child.pid).join(' ')} 2>/dev/null; rm -rf ${dir}`);
  };
  const stop = async () => {
    watchdog?.cancel();
    for (const daemon of daemons.reverse()) await stopDaemon(daemon);
    daemons.length = 0;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const monmap = path.join(dir, 'monmap');
    await run('monmaptool', ['--create', '--addv', 'a', `v1:127.0.0.1:${monPort}`, '--fsid', fsid, monmap]);
    await run('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', monmap, '-c', conf]);
    daemons.push(startDaemon('ceph-mon', 'ceph-mon', ['-f', '-i', 'a', '-c', conf], path.join(dir, 'log', 'mon.stdout')));
    guard();
    const osdId = (await run('ceph', ['-c', conf, '--connect-timeout', '20', 'osd', 'new', osdUuid])).trim();
    if (osdId !== '0') throw new Error(`ceph osd new printed ${JSON.stringify(osdId)}, expected 0`);
    await run('ceph-osd', ['-i', '0', '--mkfs', '--osd-uuid', osdUuid, '-c', conf]);
    daemons.push(await startOsd(dir, conf));
    guard();
    const rgw = startDaemon('radosgw', 'radosgw', ['-f', '-n', 'client.rgw.t', '-c', conf], path.join(dir, 'log', 'rgw.stdout'));
    daemons.push(rgw);
    guard();
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await waitFor(`radosgw at ${endpoint} (logs in ${dir}/log)`, async () => {
      if (!isRunning(rgw)) throw new Error(`radosgw exited; see ${dir}/log`);
      await fetch(endpoint);
      return true;
    }, 90_000);
    await run('radosgw-admin', ['-c', conf, '-n', 'client.rgw.t', 'user', 'create', '--uid=lineage', '--display-name=lineage',
      `--access-key=${ACCESS_KEY}`, `--secret-key=${SECRET_KEY}`]);
    return { endpoint, region: 'us-east-1', accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, dir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
