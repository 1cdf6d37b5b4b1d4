/** The few inline icons the dashboard uses (no icon font: nothing to download). */
const base = { width: 12, height: 12, viewBox: '0 0 16 16', fill: 'none', stroke: 'currentColor', strokeWidth: 1.5, 'aria-hidden': true } as const;

export const CopyIcon = () => (
  <svg {...base}>
    <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
    <path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2" />
  </svg>
);

export const CheckIcon = () => (
  <svg {...base}>
    <path d="M3 8.5l3 3 7-7" />
  </svg>
);

export const SearchIcon = () => (
  <svg {...base} width={14} height={14}>
    <circle cx="7" cy="7" r="4.5" />
    <path d="M10.5 10.5L14 14" />
  </svg>
);

export const FileIcon = () => (
  <svg {...base}>
    <path d="M4 1.5h5l3 3v10H4z" />
    <path d="M9 1.5v3h3" />
  </svg>
);

export const FolderIcon = () => (
  <svg {...base}>
    <path d="M1.5 3.5h5l1.5 1.5h6.5v8.5h-13z" />
  </svg>
);

export const DownloadIcon = () => (
  <svg {...base}>
    <path d="M8 2v8M4.5 7L8 10.5 11.5 7M2.5 13.5h11" />
  </svg>
);
