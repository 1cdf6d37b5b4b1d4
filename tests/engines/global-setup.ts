/**
 * vitest global setup for the scale-out suite: the engines broker (broker.ts) for every run, its
 * URL handed to the test workers with `provide`. Nothing starts unless a test asks for an engine;
 * when the selected test files already show they will (`usePostgres(` / `useRadosgw(` in their
 * text), the engines start at once in the background, beside the first tests, rather than when
 * the first scale-out test reaches them. Everything started is stopped and removed at teardown.
 */
import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startEnginesBroker } from './broker';

declare module 'vitest' {
  export interface ProvidedContext {
    enginesBroker: string;
  }
}

/** The test files this run selected (the command line's filters, or all of them). */
async function selectedFiles(project: TestProject): Promise<string[]> {
  // `filenamePattern` holds the command line's file filters; it is internal, so read it defensively.
  const filters = (project.vitest as unknown as { filenamePattern?: unknown }).filenamePattern;
  const { testFiles } = await project.globTestFiles(Array.isArray(filters) ? filters.map(String) : []);
  return testFiles;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const broker = await startEnginesBroker();
  project.provide('enginesBroker', broker.url);
  const texts = (await selectedFiles(project).catch(() => [])).map((file) => fs.readFileSync(file, 'utf8'));
  if (texts.some((text) => text.includes('usePostgres('))) broker.warm('postgres');
  if (texts.some((text) => text.includes('useRadosgw('))) broker.warm('radosgw');
  return () => broker.close();
}
