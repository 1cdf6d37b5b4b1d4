#!/usr/bin/env node
// The package's bin: runs the TypeScript CLI through tsx's loader (path aliases from tsconfig).
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
register({ tsconfig: path.join(root, 'tsconfig.json') });
await import(path.join(root, 'lib/cli/main.ts'));
