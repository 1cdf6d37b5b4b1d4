/**
 * The store index as the clients before `lineage-state 2` wrote it (`lineage-state 1`, text): for
 * the tests that a state they left is still read. The encoder of that code, kept here only.
 */
import { jsonString } from '../store/json-string';
import type { StoreIndex } from '../store/index-file';

export function encodeIndexV1(index: StoreIndex): Buffer {
  const { sequence, generation, logLength, liveBytes, alf, context, meta, files } = index;
  const lines = [`lineage-state 1 ${sequence} ${generation} ${logLength} ${liveBytes} ${alf ?? '-'} ${context} ${files.length}`, JSON.stringify(meta)];
  for (const f of files) {
    const { ino, size, mtimeNs, ctimeNs } = f.stat;
    lines.push(`${ino} ${size} ${mtimeNs} ${ctimeNs} ${f.digest ?? '-'} ${f.kind} ${f.raw.off} ${f.raw.len} ${f.table?.off ?? 0} ${f.table?.len ?? 0} ${f.linesBytes} ${jsonString(f.rel)}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}
