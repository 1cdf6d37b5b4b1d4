/**
 * JSON shapes of the dashboard API (`app/api/**`), as the browser receives them. They mirror the
 * return values of the `lib/history` query verbs; routes return those values unchanged.
 */
export type RecordOp = 'create' | 'update' | 'delete';

export interface ActivityDay {
  day: string;
  creates: number;
  updates: number;
  deletes: number;
}

export interface AgentSummary {
  id: string;
  name: string;
  runtime: string | null;
  latest_sequence: number | null;
  last_sync_at: string | null;
  live_records: number;
  syncs_7d: number;
  changed_records_7d: number;
  activity: ActivityDay[];
}

export interface SequenceSummary {
  seq: number;
  kind: 'snapshot' | 'delta';
  synced_at: string;
  creates: number;
  updates: number;
  deletes: number;
  raw_changed: number;
  raw_deleted: number;
  size_bytes: number;
}

export interface SequencePage {
  items: SequenceSummary[];
  next_before: number | null;
}

export interface SequenceOp {
  op: RecordOp;
  record_id: string;
  origin_file: string | null;
  heading: string | null;
  memory_type: string;
  namespace: string;
  content: string;
  previous_content: string | null;
  moved_from: string | null;
}

export interface RawChange {
  path: string;
  change: string;
  size: number;
  record_ids: string[];
}

export interface SequenceDetail {
  seq: number;
  kind: 'snapshot' | 'delta';
  synced_at: string;
  ops: SequenceOp[];
  raw: RawChange[];
}

export interface LiveRecord {
  record_id: string;
  heading: string | null;
  content: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  tags: string[];
  first_seq: number;
  last_seq: number;
  line_start: number | null;
  line_end: number | null;
}

export interface FacetValue {
  value: string;
  count: number;
}

export interface RecordsAt {
  seq: number;
  total: number;
  records: LiveRecord[];
  facets: Record<'memory_type' | 'namespace' | 'file' | 'tag' | 'status' | 'tier', FacetValue[]>;
}

export interface LineageVersion {
  seq: number;
  op: RecordOp;
  synced_at: string;
  content: string;
  memory_type: string;
  namespace: string;
  status: string;
  origin_file: string | null;
  heading: string | null;
  tags: string[];
}

export interface ProvenanceLink {
  record_id: string;
  origin_file: string | null;
  seq: number;
}

export interface Lineage {
  record: {
    record_id: string;
    heading: string | null;
    memory_type: string;
    namespace: string;
    status: string;
    origin_file: string | null;
    tags: string[];
    born_seq: number;
    born_at: string;
    last_changed_seq: number;
    last_changed_at: string;
    deleted_seq: number | null;
  };
  versions: LineageVersion[];
  moved_from: ProvenanceLink | null;
  moved_to: ProvenanceLink | null;
}

export interface ChangeItem {
  seq: number;
  op: RecordOp;
  record_id: string;
  heading: string | null;
  origin_file: string | null;
  memory_type: string;
  synced_at: string;
  snippet: string;
}

export interface ChangeGroup {
  agent_id: string;
  agent_name: string;
  day: string;
  changes: ChangeItem[];
}

export interface Changes {
  since: string;
  groups: ChangeGroup[];
}

export interface Appearance {
  agent_id: string;
  agent_name?: string;
  record_id: string;
  sequence: number;
  synced_at: string;
  origin_file: string | null;
  op?: RecordOp;
  snippet: string;
}

export interface SearchResult {
  query: string;
  first: Appearance | null;
  appearances: Appearance[];
  total: number;
}

export interface SequenceAt {
  sequence: number;
  synced_at: string;
}

export interface WorkspaceFile {
  path: string;
  size: number;
  sha256: string;
  changed_seq: number;
}

export interface WorkspaceTree {
  seq: number;
  files: WorkspaceFile[];
}

export type ArchiveFormat = 'tar.gz' | 'zip' | 'alf';
