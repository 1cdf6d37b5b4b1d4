// `node bench/measure/commit-floor.mjs WORKSPACE STORE`: git's `add -A && commit`, done by a Node
// process, for the `commit_floor_*` rows (bench/measure/sync-50k.ts). What it does is git's work and
// nothing of ours: it stats every file against an index of stat data (git's racy-timestamp rule
// included), reads and hashes only the files whose stat data changed, writes each new blob as a
// zlib-deflated loose object (a temporary file renamed into place), a tree object per directory,
// a commit object, and the index and the head, each through a temporary file and a rename. Like
// git (2.39, by default) it syncs nothing to disk. It parses no memory, keys no section, builds no
// record and ingests nothing: its time is what a Node process needs for a commit of the change.
//
// Plain JavaScript run by `node` itself (no tsx, no bundle): the floor is Node's start-up plus that
// work. `--pack` writes the new objects into one file (a pack, as after `git gc`) rather than a file each:
// what a sync that stores the change in one archive writes. Prints `{"read":N,"written":N}` (files read, objects written) as its last line.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const [workspace, store, mode] = process.argv.slice(2);
if (!workspace || !store || (mode !== undefined && mode !== '--pack')) throw new Error('usage: commit-floor.mjs WORKSPACE STORE [--pack]');
/** `--pack`: the new objects go into one pack file (one file written per commit) instead of a file each. */
const packed = mode === '--pack' ? [] : null;
const objects = path.join(store, 'objects');
const indexFile = path.join(store, 'index.json');

/** rel → { stat: 'size:mtimeNs:ctimeNs:ino', oid } of the last commit; and when its index was written. */
let index = {};
let indexMtimeNs = -1n;
try {
  index = JSON.parse(fs.readFileSync(indexFile, 'utf8'));
  indexMtimeNs = fs.statSync(indexFile, { bigint: true }).mtimeNs;
} catch {
  fs.mkdirSync(objects, { recursive: true });
}

let read = 0;
let written = 0;
const next = {};

function writeObject(type, body) {
  const header = Buffer.from(`${type} ${body.length}\0`, 'latin1');
  const oid = createHash('sha1').update(header).update(body).digest('hex');
  if (packed) {
    // Unlike git, nothing is looked up first: an object stored before (an unchanged tree, a blob whose
    // bytes came back) is stored again.
    packed.push(zlib.deflateSync(Buffer.concat([header, body]), { level: 1 }));
    written++;
    return oid;
  }
  const file = path.join(objects, oid.slice(0, 2), oid.slice(2));
  if (fs.existsSync(file)) return oid;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, zlib.deflateSync(Buffer.concat([header, body]), { level: 1 }));
  fs.renameSync(tmp, file);
  written++;
  return oid;
}

/** The tree object of a directory, its files' blobs written first (only the changed ones are read). */
function commitDir(dir, rel) {
  const entries = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    // What the bench's repository leaves out too (.git/info/exclude there).
    if (entry.name === '.git' || entry.name === '.alf-agent-id' || entry.name === '.alf-synced.json') continue;
    const abs = path.join(dir, entry.name);
    const name = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      entries.push({ name: entry.name, mode: '40000', oid: commitDir(abs, name) });
    } else if (entry.isFile()) {
      const st = fs.lstatSync(abs, { bigint: true });
      const stat = `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
      const prior = index[name];
      // git's racy rule: stat data equal, but modified no earlier than the index was written: read again.
      let oid = prior && prior.stat === stat && st.mtimeNs < indexMtimeNs ? prior.oid : null;
      if (oid === null) {
        read++;
        oid = writeObject('blob', fs.readFileSync(abs));
      }
      next[name] = { stat, oid };
      entries.push({ name: entry.name, mode: '100644', oid });
    }
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return writeObject('tree', Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.oid, 'hex')]))));
}

function replace(file, text) {
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

const tree = commitDir(workspace, '');
let parent = null;
try {
  parent = fs.readFileSync(path.join(store, 'HEAD'), 'utf8').trim();
} catch {
  // The first commit.
}
const when = `${Math.floor(Date.now() / 1000)} +0000`;
const commit = writeObject('commit', Buffer.from(`tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author Bench <bench@bench.invalid> ${when}\ncommitter Bench <bench@bench.invalid> ${when}\n\nfloor\n`, 'utf8'));
if (packed) replace(path.join(objects, `${commit}.pack`), Buffer.concat(packed));
replace(indexFile, JSON.stringify(next));
replace(path.join(store, 'HEAD'), `${commit}\n`);
process.stdout.write(`${JSON.stringify({ read, written })}\n`);
