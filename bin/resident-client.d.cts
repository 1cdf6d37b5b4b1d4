// Types of bin/resident-client.cjs for the TypeScript that imports it (lib/cli/commands/watch.ts, tests).
export const RESIDENT_PROTOCOL: number;
export function residentRunDir(env?: Record<string, string | undefined>): string;
export function isTrustedRunDir(dir: string): boolean;
export function trustedSockets(dir: string): string[];
export function removeGoneSockets(dir: string): string[];
export interface ResidentAnswerIo { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } }
export type ResidentAnswer = { code: number } | { declined: string; watching?: { pid: number; target: string } } | { lost: number };
export function askResident(socket: string, request: object, io?: ResidentAnswerIo): Promise<ResidentAnswer>;
export function residentRequest(argv: string[], opts?: { cwd?: string; env?: Record<string, string | undefined>; probe?: boolean; stamp?: string | null }): {
  v: number; argv: string[]; cwd: string; env: Record<string, string | undefined>; probe: boolean; stamp: string | null;
};
export function syncThroughResident(argv: string[], env?: Record<string, string | undefined>, stamp?: string | null): Promise<number | null>;
