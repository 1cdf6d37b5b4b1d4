/**
 * Archive member name rules (CONTRACT §9): a name that could escape an extraction
 * root, or that two platforms could read differently, is refused outright.
 */

/** Why `name` is unsafe as an archive member name, or null when it is safe. */
export function entryNameProblem(name: string): string | null {
  if (name.length === 0) return 'empty entry name';
  if (name.includes('\0')) return 'entry name contains NUL';
  if (name.includes('\\')) return 'entry name contains a backslash';
  if (/^[A-Za-z]:/.test(name)) return 'entry name has a drive prefix';
  if (name.startsWith('/')) return 'entry name is an absolute path';
  // A single trailing `/` marks a directory entry; every other segment must be non-empty.
  const body = name.endsWith('/') ? name.slice(0, -1) : name;
  const segments = body.split('/');
  if (segments.some((segment) => segment.length === 0)) return 'entry name has an empty path segment';
  if (segments.some((segment) => segment === '..')) return 'entry name has a ".." segment';
  if (segments.some((segment) => segment === '.')) return 'entry name has a "." segment';
  return null;
}

/** True when the name denotes a directory entry (ends with `/`). */
export function isDirectoryName(name: string): boolean {
  return name.endsWith('/');
}

/** Safe name of a file (not a directory), or the reason it is not. */
export function fileNameProblem(name: string): string | null {
  if (isDirectoryName(name)) return 'file name ends with "/"';
  return entryNameProblem(name);
}
