import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { namespaceFromBytes, uuidV5 } from './uuid';

/** RFC 4122 §4.3 written out with buffers, as the reference does. */
function referenceV5(namespace: string, name: string): string {
  const digest = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(Buffer.from(name, 'utf8')).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

describe('uuidV5', () => {
  it('matches the RFC vector for a namespace with non-ASCII bytes (DNS)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('hashes ASCII namespaces as text with the same result as the byte form', () => {
    const namespaces = [namespaceFromBytes('openclaw-alf-ns1'), namespaceFromBytes('alf-id-ns-v5-001'), '6ba7b811-9dad-11d1-80b4-00c04fd430c8', '7f7f7f7f-7f7f-7f7f-7f7f-7f7f7f7f7f7f'];
    const names = ['', 'content-v1:a:MEMORY.md:abc:0', 'ünïcödé — 日本語 🎉', '\u0000\uffff', 'x'.repeat(5000)];
    for (const ns of namespaces) for (const name of names) expect(uuidV5(ns, name)).toBe(referenceV5(ns, name));
    for (let v = 0; v < 64; v++) expect(uuidV5(namespaceFromBytes('openclaw-alf-ns1'), `n${v}`)).toBe(referenceV5(namespaceFromBytes('openclaw-alf-ns1'), `n${v}`));
  });
});
