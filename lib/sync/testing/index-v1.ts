/**
 * The store index as the clients before `lineage-state 2` wrote it (`lineage-state 1`, text): for
 * the tests that a state they left is still read. The encoder of that code, kept here only.
 */
import { headerLine } from '../store/index-common';
import type { StoreIndex } from '../store/index-file';
import { jsonString } from '../store/json-string';

export function encodeIndexV1(index: StoreIndex): Buffer {
  const lines = [headerLine(1, index), JSON.stringify(index.meta)];
  for (const f of index.files) {
    const { ino, size, mtimeNs, ctimeNs } = f.stat;
    lines.push(`${ino} ${size} ${mtimeNs} ${ctimeNs} ${f.digest ?? '-'} ${f.kind} ${f.raw.off} ${f.raw.len} ${f.table?.off ?? 0} ${f.table?.len ?? 0} ${f.linesBytes} ${jsonString(f.rel)}`);
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}
