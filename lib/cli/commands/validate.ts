import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { validateArchive } from '@/lib/core/validate';
import { CliError, printJson } from '../output';

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('check a .alf or .alf-delta archive against the format')
    .argument('<file>', 'archive to validate')
    .option('--strict-crypto', 'a credential with no ciphertext (algorithm "none") or an unknown algorithm is an error, not a warning')
    .action(async (file: string, options: { strictCrypto?: boolean }) => {
      if (file.trim() === '') throw new CliError('invalid_argument', 'the archive to validate was given as an empty path', 'pass the path of a .alf or .alf-delta file');
      const bytes = await fs.readFile(file).catch((error: unknown) => {
        throw unreadable(file, error);
      });
      const result = await validateArchive(new Uint8Array(bytes), undefined, { strictCrypto: options.strictCrypto === true });
      // As the reference: `ok` is the verdict, and an invalid archive exits 1.
      printJson({ ok: result.valid, ...result });
      if (!result.valid) process.exitCode = 1;
    });
}

/** Why the archive could not be read, in words ("cannot read ws" said nothing of a directory). */
function unreadable(file: string, error: unknown): CliError {
  const code = (error as { code?: unknown }).code;
  const hint = 'pass the path of a .alf or .alf-delta file';
  if (code === 'EISDIR') return new CliError('invalid_argument', `${file} is a directory, not an archive`, hint);
  if (code === 'ENOENT' || code === 'ENOTDIR') return new CliError('file_not_found', `no file at ${file}`, hint);
  return new CliError('file_not_found', `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, hint);
}
