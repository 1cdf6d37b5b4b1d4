import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { validateArchive } from '@/lib/core/validate';
import { CliError, printJson } from '../output';

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('check a .alf or .alf-delta archive against the format')
    .argument('<file>', 'archive to validate')
    .action(async (file: string) => {
      const bytes = await fs.readFile(file).catch(() => {
        throw new CliError('file_not_found', `cannot read ${file}`);
      });
      const result = await validateArchive(new Uint8Array(bytes));
      // As the reference: `ok` is the verdict, and an invalid archive exits 1.
      printJson({ ok: result.valid, ...result });
      if (!result.valid) process.exitCode = 1;
    });
}
