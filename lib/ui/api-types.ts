/**
 * JSON shapes of the dashboard API (`app/api/**`) as the browser receives them: the return types
 * of the `lib/history` query verbs, which the routes return unchanged (type-only imports: nothing
 * server-side reaches the browser bundle).
 */
import type {
  AgentWithStats, Appearance, ChangeGroup, ChangeItem, DayActivity, FacetCount, LineageLink, LineageVersion,
  RecordAtItem, RecordLineage, RecordsAtResult, SearchResult, SequenceDetail, SequenceItem, SequenceOp,
  SequenceRawChange, SequenceRawPage, WorkspaceFileInfo,
} from '@/lib/history/queries';
import type { IndexNotice } from '@/lib/history/pending-index';

export type RecordOp = 'create' | 'update' | 'delete' | 'move';
export type ActivityDay = DayActivity;
/** The fleet's entry; GET /api/agents/{id} (an agent's pages) adds `index_notice`: why its history stops short of its ledger, or null. */
export type AgentSummary = AgentWithStats & { index_notice?: IndexNotice | null };
/** GET /api/agents?view=names: an agent filter's options. */
export interface AgentName { id: string; name: string; runtime: string | null }
export type SequenceSummary = SequenceItem;
export type SequencePage = { items: SequenceItem[]; next_before: number | null };
export type { SequenceDetail, SequenceOp, LineageVersion, ChangeGroup, ChangeItem, Appearance, SearchResult };
export type RawChange = SequenceRawChange;
export type LiveRecord = RecordAtItem;
export type FacetValue = FacetCount;
export type RecordsAt = RecordsAtResult;
export type Lineage = RecordLineage;
export type ProvenanceLink = LineageLink;
export type Changes = { since: string; groups: ChangeGroup[]; truncated: boolean; next_cursor: string | null };
export type RawChangesPage = SequenceRawPage;
export type SequenceOpsPage = { op: RecordOp; items: SequenceOp[]; next_cursor: string | null };
export type SequenceAt = { sequence: number; synced_at: string };
export type WorkspaceFile = WorkspaceFileInfo;
export type WorkspaceTree = { seq: number; files: WorkspaceFileInfo[] };
export type ArchiveFormat = 'tar.gz' | 'zip' | 'alf';
