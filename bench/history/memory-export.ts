/**
 * The OpenClaw adapter's export computed from the generator's in-memory workspace instead of a
 * directory walk, with the adapter's own record builder (`fileRecords`, handler table, v4.1 tiers,
 * `sortByCreatedAt`). Records of unchanged files are reused. Layers and the agent name come from one
 * real export (the root prose files never change). The build ends with a real export + sync that
 * must find no changes, so any drift from the adapter fails the benchmark.
 */
import type { ExportResult } from '@/lib/adapters/types';
import { handlerFor, tierFor } from '@/lib/adapters/openclaw/handlers';
import { fileRecords, sortByCreatedAt } from '@/lib/adapters/openclaw/records';
import { ROOT_FILES } from '@/lib/adapters/openclaw/workspace-files';
import type { MemoryRecord } from '@/lib/core/record';
import type { TurnChange } from './generate';

const ENC = new TextEncoder();
const ROOT_ORDER = new Map<string, number>(ROOT_FILES.map((f, i) => [f, i]));

/** The adapter's file order: root files in ROOT_FILES order, then `memory/**` by code unit. */
function compareExportOrder(a: string, b: string): number {
  const ra = ROOT_ORDER.get(a);
  const rb = ROOT_ORDER.get(b);
  if (ra !== undefined || rb !== undefined) return (ra ?? Infinity) - (rb ?? Infinity);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** mtime as the adapter formats it for a whole-second utimes stamp. */
const mtimeOf = (time: Date) => `${time.toISOString().slice(0, 19)}Z`;

export class InMemoryExport {
  private readonly raw = new Map<string, Uint8Array>();
  private readonly recordsByFile = new Map<string, MemoryRecord[]>();

  constructor(private readonly template: ExportResult) {}

  apply(change: TurnChange): void {
    for (const path of change.deletes) {
      this.raw.delete(path);
      this.recordsByFile.delete(path);
    }
    for (const [path, text] of change.writes) {
      this.raw.set(path, ENC.encode(text));
      const handler = path === 'MEMORY.md' || (path.startsWith('memory/') && path.endsWith('.md')) ? handlerFor(path) : null;
      if (handler) {
        const file = { relPath: path, text, mtime: mtimeOf(change.time), handler, tier: tierFor(path, true) };
        this.recordsByFile.set(path, fileRecords(this.template.agentId, file));
      }
    }
  }

  result(): ExportResult {
    const paths = [...this.raw.keys()].sort(compareExportOrder);
    const records = paths.flatMap((p) => this.recordsByFile.get(p) ?? []);
    const raw = new Map(paths.map((p) => [p, this.raw.get(p)!]));
    return { ...this.template, records: sortByCreatedAt(records), raw, warnings: [] };
  }
}
