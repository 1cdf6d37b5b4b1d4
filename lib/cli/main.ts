import { runProgram, type Commands } from './program';

/**
 * Commands load lazily: a `lineage sync` never pays for the web server's imports, which keeps
 * every invocation quick when scripts call the CLI in a loop. (A `lineage sync` process runs
 * lib/cli/sync-main.ts, the same CLI with `sync` alone: bin/cli-bundle.cjs.)
 */
const COMMANDS: Commands = {
  sync: async () => (await import('./commands/sync')).registerSyncCommand,
  watch: async () => (await import('./commands/watch')).registerWatchCommand,
  restore: async () => (await import('./commands/restore')).registerRestoreCommand,
  export: async () => (await import('./commands/export')).registerExportCommand,
  validate: async () => (await import('./commands/validate')).registerValidateCommand,
  index: async () => (await import('./commands/index-cmd')).registerIndexCommand,
  search: async () => (await import('./commands/search')).registerSearchCommand,
  doctor: async () => (await import('./commands/doctor')).registerDoctorCommand,
  serve: async () => (await import('./commands/serve')).registerServeCommand,
  keys: async () => (await import('./commands/keys')).registerKeysCommand,
  demo: async () => (await import('./commands/demo')).registerDemoCommand,
  start: async () => (await import('./commands/start')).registerStartCommand,
  migrate: async () => (await import('./commands/migrate')).registerMigrateCommand,
  'pack-blobs': async () => (await import('./commands/pack-blobs')).registerPackBlobsCommand,
  state: async () => (await import('./commands/state')).registerStateCommand,
  backup: async () => (await import('./commands/backup')).registerBackupCommand,
};

runProgram(COMMANDS);
