'use client';

import { useState } from 'react';
import clsx from 'clsx';
import type { WorkspaceFile } from '@/lib/ui/api-types';
import { formatBytes } from '@/lib/ui/format';
import { FileIcon, FolderIcon } from '../ui/icons';
import { SafeName, visibleName } from '@/components/ui/SafeName';
import { PathText } from '../ui/PathText';

interface Dir {
  name: string;
  path: string;
  dirs: Map<string, Dir>;
  files: WorkspaceFile[];
}

function buildTree(files: WorkspaceFile[]): Dir {
  const root: Dir = { name: '', path: '', dirs: new Map(), files: [] };
  for (const file of files) {
    const parts = file.path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      const path = dir.path ? `${dir.path}/${part}` : part;
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { name: part, path, dirs: new Map(), files: [] }));
      dir = next;
    }
    dir.files.push(file);
  }
  return root;
}

/**
 * Files of one folder drawn at first (and per "show more"): a folder of 500 topic files is 4,000
 * elements in full. The open file is drawn wherever it sorts, shown or not.
 */
export const TREE_FILES = 100;

function DirNode({ dir, depth, selected, seq, onSelect }: { dir: Dir; depth: number; selected: string | null; seq: number; onSelect: (p: string) => void }) {
  const pad = { paddingLeft: `${depth * 14 + 10}px` };
  const [shown, setShown] = useState(TREE_FILES);
  const files = dir.files.sort((a, b) => a.path.localeCompare(b.path));
  const hidden = Math.max(0, files.length - shown);
  return (
    <>
      {[...dir.dirs.values()].sort((a, b) => a.name.localeCompare(b.name)).map((child) => (
        <li key={child.path}>
          <details open>
            <summary className="flex cursor-pointer items-center gap-1.5 py-1 pr-2 text-[12px] text-muted hover:bg-zinc-50 focus-visible:-outline-offset-2" style={pad}>
              <FolderIcon />
              <span className="font-mono"><SafeName name={child.name} /></span>
            </summary>
            <ul>
              <DirNode dir={child} depth={depth + 1} selected={selected} seq={seq} onSelect={onSelect} />
            </ul>
          </details>
        </li>
      ))}
      {files.filter((file, i) => i < shown || file.path === selected).map((file) => {
        const name = file.path.split('/').pop() ?? file.path;
        const changedHere = file.changed_seq === seq;
        return (
          <li key={file.path}>
            <button
              type="button"
              onClick={() => onSelect(file.path)}
              data-testid="tree-file"
              data-path={file.path}
              aria-current={selected === file.path ? 'true' : undefined}
              data-reconstructed={file.reconstructed ? 'true' : undefined}
              title={`${visibleName(file.path)} · ${formatBytes(file.size)} · written at #${file.changed_seq}${file.reconstructed ? ' · reconstructed from records' : ''}`}
              className={clsx(
                'flex w-full items-center gap-1.5 py-1 pr-2 text-left text-[12px] hover:bg-zinc-50 focus-visible:-outline-offset-2',
                selected === file.path ? 'bg-accent-soft text-accent' : 'text-ink',
              )}
              style={pad}
            >
              <FileIcon />
              <span className="truncate font-mono"><SafeName name={name} /></span>
              {file.reconstructed && (
                <span className="shrink-0 rounded bg-amber-50 px-1 text-[10px] text-amber-700" data-testid="tree-file-reconstructed">
                  from records
                </span>
              )}
              <span className={clsx('ml-auto shrink-0 font-mono text-[10px]', changedHere ? 'text-update' : 'text-faint')}>
                {changedHere ? 'changed' : `#${file.changed_seq}`}
              </span>
            </button>
          </li>
        );
      })}
      {hidden > 0 && (
        <li>
          <button
            type="button"
            onClick={() => setShown((n) => n + TREE_FILES)}
            data-testid="tree-more"
            className="w-full py-1 pr-2 text-left text-[12px] text-accent hover:bg-zinc-50 focus-visible:-outline-offset-2"
            style={pad}
          >
            Show {Math.min(TREE_FILES, hidden)} more files <span className="text-muted">({hidden} not shown{dir.name ? ` in ${dir.name}` : ''})</span>
          </button>
        </li>
      )}
    </>
  );
}

/** A ZeroClaw/Hermes workspace's database file: not stored as bytes, rebuilt from the records at `seq`. */
export interface TreeDatabase {
  path: string;
  /** Bytes as the downloads carry it; null while it is being rebuilt. */
  size: number | null;
  seq: number;
}

/** The database's entry: its path and size, and a link to its rows (the records table above the tree). */
function DatabaseNode({ database }: { database: TreeDatabase }) {
  const label = `database — rebuilt from records at #${database.seq}`;
  return (
    <li>
      <a
        href="#database-records"
        data-testid="tree-database"
        data-path={database.path}
        title={`${visibleName(database.path)}${database.size === null ? '' : ` · ${formatBytes(database.size)}`} · ${label}: its rows are the table above`}
        className="flex w-full items-start gap-1.5 py-1 pl-2.5 pr-2 text-left text-[12px] text-ink hover:bg-zinc-50 focus-visible:-outline-offset-2"
      >
        <FileIcon />
        <span className="min-w-0 flex-1">
          <span className="block break-words font-mono"><PathText path={database.path} /></span>
          <span className="block text-[10.5px] text-muted" data-testid="tree-database-label">{label}</span>
        </span>
        <span className="ml-auto shrink-0 font-mono text-[10px] text-muted" data-testid="tree-database-size">
          {database.size === null ? '…' : formatBytes(database.size)}
        </span>
      </a>
    </li>
  );
}

/** The workspace's files as a folder tree; files written at this sequence are marked; a runtime's database file first. */
export function FileTree({ files, selected, seq, onSelect, database }: { files: WorkspaceFile[]; selected: string | null; seq: number; onSelect: (p: string) => void; database?: TreeDatabase | null }) {
  return (
    <ul className="py-1" data-testid="file-tree">
      {database && <DatabaseNode database={database} />}
      <DirNode dir={buildTree(files)} depth={0} selected={selected} seq={seq} onSelect={onSelect} />
    </ul>
  );
}
