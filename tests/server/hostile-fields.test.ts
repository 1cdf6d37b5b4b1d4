/**
 * Records whose fields hold the wrong JSON type, pushed through the protocol of a real `lineage
 * serve` with its dashboard, as a snapshot and as a delta. The reference reader types every known
 * field (CONTRACT §4.1, memory-record.schema.json): a field of the wrong type — a required one, a
 * time, or an optional one (`tags` a string, `confidence` text, `source.origin` a number, an
 * entity without a name …) — makes it refuse the archive, and so does ingest: 400 with a message
 * naming the field, nothing stored. What the reference reads as it comes — `raw_source_format` of
 * any type, unknown keys holding anything, an unknown `memory_type` or `status`, a number outside
 * what the validator wants, null in an optional scalar, markup and very long text in every string —
 * is taken, and every page and API route of the agent, its downloads, `GET /v1/agents/:id/memory`,
 * another tenant's pages, the change feed and search answer without a 5xx and draw it as text.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateArchive } from '@/lib/core/validate';
import { record, snapshotBytes } from './archives';
import { raw } from './dashboard-http';
import { call, serveTwoTenants, stateFingerprint, type ServedTenants } from './harness';
import {
  lineVerdicts, manifestVerdicts, none, REFUSED_LINES, REFUSED_MANIFESTS, TAKEN_LINES, TAKEN_MANIFESTS, validatorDisagreements,
} from './duplicate-keys-cases';
import { fieldOf, HostileUploader, MARKUP, OCTET, pageFailures, REFUSED, REFUSED_PAST_READER, routesOf } from './hostile-fields-cases';
import {
  fileRefValidatorDisagreements, fileRefVerdicts, layerValidatorDisagreements, layerVerdicts, REFUSED_FILE_REFS, REFUSED_LAYERS, REFUSED_SKIPPED,
  skippedVerdicts, TAKEN_FILE_REFS, TAKEN_LAYERS, TAKEN_SKIPPED,
} from './layer-cases';
import {
  fallbackMismatchVerdicts, manifestFieldValidatorDisagreements, manifestFieldVerdicts, REFUSED_FALLBACK_MANIFESTS, REFUSED_MANIFEST_FIELDS, TAKEN_MANIFEST_FIELDS,
} from './manifest-cases';

let served: ServedTenants;
let base: string;
let dataDir: string;
let keys: ServedTenants['keys'];
const hostile = randomUUID();
const healthy = randomUUID();
let uploader: HostileUploader;

beforeAll(async () => {
  served = await serveTwoTenants();
  ({ url: base, dataDir, keys } = served);
  uploader = new HostileUploader(base, hostile, keys.a);
  for (const [key, id, name] of [[keys.a, hostile, 'hostile'], [keys.b, healthy, 'healthy-neighbour']] as const) {
    expect((await call(`${base}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name, source_runtime: 'openclaw' }) })).status).toBe(201);
    expect((await call(`${base}/agents/${id}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(id) })).status).toBe(201);
  }
}, 900_000);

afterAll(async () => {
  await served?.stop();
});

/** A GET of the local owner (every agent on loopback); a page as a browser asks for it. */
const get = (url: string) => raw(`${base}${url}`, url.startsWith('/api/') ? {} : { headers: { accept: 'text/html' } });
const enc = encodeURIComponent;

describe('record fields of the wrong type', () => {
  it('each is refused at ingest, as a delta and as a snapshot: 400 naming the field, nothing stored', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    // A good record beside the bad one in each: the whole archive is refused, the good one too.
    expect(await uploader.refusals()).toEqual([]);
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('ingest is never stricter than `lineage validate`: each archive it refuses, the validator calls invalid too', async () => {
    const uploads = new HostileUploader(base, randomUUID(), keys.a);
    const valid: string[] = [];
    for (const [field, value] of REFUSED) {
      const archive = uploads.snapshotOf([uploads.recordWith(field, value)]);
      if ((await validateArchive(archive)).valid) valid.push(`${field}=${JSON.stringify(value)?.slice(0, 60)}`);
    }
    expect(valid).toEqual([]);
    // Past the reader (README, "ingest's own rules"): the validator warns of each, naming the field.
    for (const [field, value] of REFUSED_PAST_READER) {
      const verdict = await validateArchive(uploads.snapshotOf([uploads.recordWith(field, value)]));
      expect(verdict.warnings.map((w) => w.message).join('\n'), `${field}=${String(value)}`).toContain('lowercase hyphenated');
    }
  });

  it('what the reference reads as it comes is taken, and every page and route of the agent draws it as text', async () => {
    const taken = await uploader.takeAll();
    const seq = await uploader.latestSequence();

    const A = `/agents/${hostile}`;
    const ids = taken.map((t) => String(t.rec.id));
    expect(await pageFailures(get, routesOf(hostile, seq, ids))).toEqual([]);
    for (const url of [A, `${A}/sequences/${seq}`, ...ids.slice(0, 5).map((id) => `${A}/memories/${enc(id)}`)]) expect((await get(url)).status, url).toBe(200);

    // The protocol's dashboard DTO and restore plan, with the agent's key.
    const memory = await call(`${base}/v1/agents/${hostile}/memory`, { key: keys.a });
    expect(memory.status, memory.text.slice(0, 300)).toBe(200);
    expect(memory.text).toContain(JSON.stringify(MARKUP).slice(1, -1));
    const plan = await call(`${base}/agents/${hostile}/restore`, { key: keys.a });
    expect(plan.status).toBe(200);
    for (const link of [plan.json.snapshot, ...plan.json.deltas].filter(Boolean) as { url: string }[]) expect((await fetch(link.url)).status).toBe(200);

    // The values are kept as they came: the record route returns each one.
    for (const { field, rec } of taken) {
      const reply = await call(`${base}/api${A}/records/${enc(String(rec.id))}`);
      expect(reply.status, field).toBe(200);
      expect(fieldOf(reply.json.versions.at(-1).record, field), field).toEqual(fieldOf(rec, field));
    }
  });

  it('another tenant\'s agent, pages and key are unharmed, and see nothing of the hostile one', async () => {
    const B = `/agents/${healthy}`;
    for (const url of ['/', B, `${B}/workspace`, `${B}/sequences/0`, `/api${B}/records?at=0`, `/api${B}`, '/api/changes?since=2000-01-01', '/api/search?q=fact']) {
      const reply = await get(url);
      expect(reply.status, `${url}: ${reply.text.slice(0, 300)}`).toBe(200);
    }
    const records = await call(`${base}/api${B}/records?at=0`);
    expect(records.json.items.map((r: { record_id: string }) => r.record_id).sort()).toEqual([1, 2, 3].map((n) => String(record(healthy, n).id)).sort());
    const memory = await call(`${base}/v1/agents/${healthy}/memory`, { key: keys.b });
    expect(memory.status).toBe(200);
    expect(memory.text).not.toContain('<script>');
    expect((await call(`${base}/agents/${hostile}`, { key: keys.b })).status).toBe(404);
    expect((await call(`${base}/v1/agents/${hostile}/memory`, { key: keys.b })).status).toBe(404);
  });
});

describe('keys given twice in one object (duplicate-keys-cases.ts)', () => {
  it('a known field twice, plain or escaped, at each level of a record line or a manifest is refused: 400 naming the record and the key, nothing stored', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    none(await lineVerdicts(uploader, REFUSED_LINES, true));
    none(await manifestVerdicts(uploader, REFUSED_MANIFESTS, true));
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('an unknown key twice, a key twice in raw_source_format, the same key in different objects or in string values are taken', async () => {
    none(await lineVerdicts(uploader, TAKEN_LINES, false));
    none(await manifestVerdicts(uploader, TAKEN_MANIFESTS, false));
  });

  it('`lineage validate` calls each refused archive invalid and each taken one valid', async () => {
    none(await validatorDisagreements(uploader, REFUSED_LINES, REFUSED_MANIFESTS, true));
    none(await validatorDisagreements(uploader, TAKEN_LINES, TAKEN_MANIFESTS, false));
  });
});

describe('layer documents and delta lines readers skip (layer-cases.ts)', () => {
  it('a known field twice, of the wrong type or missing in a layer document, and a skipped delta line the reference reader refuses, are refused: 400 naming the file, the line and the key; nothing stored', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    none(await layerVerdicts(uploader, base, keys.a, REFUSED_LAYERS, true));
    none(await skippedVerdicts(uploader, REFUSED_SKIPPED, true));
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('unknown keys, a key twice in a map or a Value, unknown enum strings, nulls and markup are taken, and every page and route of the agent answers, drawing them as text', async () => {
    const first = await uploader.latestSequence() + 1;
    none(await layerVerdicts(uploader, base, keys.a, TAKEN_LAYERS, false));
    none(await skippedVerdicts(uploader, TAKEN_SKIPPED, false));
    const seq = await uploader.latestSequence();
    expect(await pageFailures(get, routesOf(hostile, seq, []))).toEqual([]);
    // Each sequence's layers, folded: the .alf download and the restore plan's archives.
    const A = `/api/agents/${hostile}`;
    for (let s = first; s <= seq; s++) expect((await get(`${A}/workspace/download?seq=${s}&format=alf`)).status, `seq ${s}`).toBe(200);
    const plan = await call(`${base}/agents/${hostile}/restore`, { key: keys.a });
    expect(plan.status).toBe(200);
    for (const link of [plan.json.snapshot, ...plan.json.deltas].filter(Boolean) as { url: string }[]) expect((await fetch(link.url)).status).toBe(200);
  });

  it('`lineage validate` calls each refused archive invalid and each taken one valid', async () => {
    none(await layerValidatorDisagreements(uploader, REFUSED_LAYERS, REFUSED_SKIPPED, true));
    none(await layerValidatorDisagreements(uploader, TAKEN_LAYERS, TAKEN_SKIPPED, false));
  });
});

describe('the files a manifest names for its layers (layer-cases.ts, lib/core/archive/layer-refs.ts)', () => {
  it('a listed layer whose file is not its fixed path, is not a string, is missing, or is not in the archive is refused: 400 naming the manifest field; nothing stored', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    none(await fileRefVerdicts(uploader, base, keys.a, REFUSED_FILE_REFS, true));
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('a layer listed at its fixed path and there, or a delta\'s without a file, is taken', async () => {
    none(await fileRefVerdicts(uploader, base, keys.a, TAKEN_FILE_REFS, false));
    const seq = await uploader.latestSequence();
    expect(await pageFailures(get, routesOf(hostile, seq, []))).toEqual([]);
  });

  it('`lineage validate` calls each refused archive invalid and each taken one valid', async () => {
    none(await fileRefValidatorDisagreements(uploader, REFUSED_FILE_REFS, true));
    none(await fileRefValidatorDisagreements(uploader, TAKEN_FILE_REFS, false));
  });
});

describe('the manifests\' known fields (manifest-cases.ts, lib/core/typed-fields.ts wrongTypedManifestField)', () => {
  it('a required field missing, a known field of another JSON type or null where the reference takes none, and a delta\'s memory file not memory/delta.jsonl are refused: 400 naming the manifest field; nothing stored', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    none(await manifestFieldVerdicts(uploader, base, keys.a, REFUSED_MANIFEST_FIELDS, true));
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('a delta whose manifest is stored as manifest.json (CONTRACT §3.2) is refused naming manifest.json, the file it holds; the usual one names delta-manifest.json', async () => {
    const before = stateFingerprint(dataDir);
    const seq = await uploader.latestSequence();
    none(await manifestFieldVerdicts(uploader, base, keys.a, REFUSED_FALLBACK_MANIFESTS, true));
    none(await fallbackMismatchVerdicts(uploader, base, keys.a));
    expect(await uploader.latestSequence()).toBe(seq);
    expect(stateFingerprint(dataDir)).toEqual(before);
  });

  it('null layer entries and changes (not listed), every known field of its type, and unknown keys are taken', async () => {
    none(await manifestFieldVerdicts(uploader, base, keys.a, TAKEN_MANIFEST_FIELDS, false));
    const seq = await uploader.latestSequence();
    expect(await pageFailures(get, routesOf(hostile, seq, []))).toEqual([]);
  });

  it('`lineage validate` calls each refused archive invalid and each taken one valid', async () => {
    none(await manifestFieldValidatorDisagreements(uploader, REFUSED_MANIFEST_FIELDS, true));
    none(await manifestFieldValidatorDisagreements(uploader, TAKEN_MANIFEST_FIELDS, false));
  });
});
