import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { getAdapter } from '@/lib/adapters';
import { writeSnapshot } from '@/lib/core/archive';
import { systemClock } from '@/lib/core/clock';
import { ALF_VERSION, snapshotFromExport } from '@/lib/sync/snapshot';
import { writeFileAtomic } from '@/lib/sync/state';
import { isDirectory, notADirectory, parseRuntime, parseRuntimeAgent, requireOption, runtimeWorkspace } from '../parse-options';
import { CliError, printJson } from '../output';

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description('write a workspace as a .alf archive')
    .option('-r, --runtime <runtime>', 'openclaw | zeroclaw | hermes', 'openclaw')
    .option('-w, --workspace <dir>', 'the agent workspace')
    .option('-o, --output <file>', 'output file (default ./<workspace-name>.alf)')
    .option('--runtime-agent <alias>', 'ZeroClaw: agents.alias to export')
    .option('--dry-run', 'list what would be exported, write nothing', false)
    .action(async (flags: { runtime?: string; workspace?: string; output?: string; runtimeAgent?: string; dryRun?: boolean }) => {
      const workspace = requireOption(flags.workspace, '-w/--workspace');
      const runtime = parseRuntime(flags.runtime);
      const runtimeAgent = parseRuntimeAgent(runtime, flags.runtimeAgent);
      // Checked before the export, which may write the workspace's .alf-agent-id.
      const output = flags.dryRun ? null : outputFile(flags.output ?? `${path.basename(path.resolve(workspace))}.alf`);
      await runtimeWorkspace(workspace, runtime);
      const exported = await getAdapter(runtime).exportWorkspace({ workspace, runtimeAgent, persistAgentId: !flags.dryRun, clock: systemClock });
      const warnings = exported.warnings.length ? { warnings: exported.warnings } : {};
      if (output === null) {
        const files = [...exported.raw].map(([p, b]) => ({ path: p, size: b.length }));
        printJson({ ok: true, dry_run: true, agent_name: exported.agentName, memory_records: exported.records.length, files, excluded_by_alfignore: exported.excludedByAlfignore, total_size: files.reduce((n, f) => n + f.size, 0), ...warnings });
        return;
      }
      const bytes = await writeSnapshot(snapshotFromExport(exported, systemClock(), exported.records));
      await fs.mkdir(path.dirname(output), { recursive: true });
      await writeFileAtomic(output, bytes);
      printJson({ ok: true, output, agent_name: exported.agentName, alf_version: ALF_VERSION, memory_records: exported.records.length, file_size: bytes.length, excluded_by_alfignore: exported.excludedByAlfignore, ...warnings });
    });
}

/** `-o`: a file to write, not a directory (it was an internal error, or a trailing `/` wrote a file of that name). */
function outputFile(given: string): string {
  const file = path.resolve(given);
  const why = notADirectory(path.dirname(file)) ?? (isDirectory(file) ? `${file} is a directory`
    : /[\\/]$/.test(given) ? `"${given}" ends in a path separator, as a directory does` : null);
  if (why !== null) throw new CliError('invalid_argument', `-o/--output names no file that can be written: ${why}`, 'e.g. -o ./agent.alf (the default: ./<workspace-name>.alf)');
  return file;
}
