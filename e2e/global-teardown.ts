import fs from 'node:fs';
import path from 'node:path';

/** Stops the server started by global-setup (its whole process group) and removes the temp dir. */
export default async function globalTeardown(): Promise<void> {
  const base = process.env.E2E_DIR;
  if (!base) return;
  const pidFile = path.join(base, 'server.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  fs.rmSync(base, { recursive: true, force: true });
}
