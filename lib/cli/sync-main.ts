import { runProgram } from './program';

/**
 * The CLI of a `lineage sync` process (bin/lineage.cjs runs this entry's bundle, `.cli/<stamp>/sync.cjs`,
 * for `lineage sync …`): lib/cli/main.ts's program with the one command, so that the process reads,
 * decodes and deserialises the sync's code only, not every command's (bin/cli-bundle.cjs).
 */
runProgram({ sync: async () => (await import('./commands/sync')).registerSyncCommand });
