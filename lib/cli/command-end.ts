/**
 * What a command opened that keeps the process alive (the scale-out storage's database pool),
 * closed once the command is done, so `lineage keys list --database-url …` exits like the embedded
 * one. Imports nothing: main.ts loads it for every command.
 */
const closers: (() => Promise<void>)[] = [];

export function closeAtCommandEnd(close: () => Promise<void>): void {
  closers.push(close);
}

export async function endCommand(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}
