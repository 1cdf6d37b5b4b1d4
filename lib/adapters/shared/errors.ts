/**
 * A problem with a store or a restore target that the user can fix (a missing workspace, a file
 * that would be overwritten, an unreadable database). `code` follows the reference CLI's registry
 * where one fits; the CLI prints it as `{ok:false, code, error}`.
 */
export class AdapterError extends Error {
  constructor(
    readonly code: 'workspace_missing' | 'restore_incomplete' | 'bad_store' | 'invalid_runtime',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AdapterError';
  }
}
