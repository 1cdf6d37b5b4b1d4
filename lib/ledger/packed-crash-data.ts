/** The blobs packed-crash.test.ts and its child write: a function of the sequence only. Not a test. */
import { createHash } from 'node:crypto';

export const crashKey = (seq: number): string => `crash-agent/${seq}-k.alf-delta`;

/** Lines seq−150 … seq of a growing log: consecutive blobs share all but a line. */
export function crashBlobAt(seq: number): Uint8Array {
  const lines: string[] = [];
  for (let j = Math.max(0, seq - 150); j <= seq; j++) lines.push(`line ${j} ${createHash('sha256').update(String(j)).digest('hex').slice(0, 24)}`);
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}
