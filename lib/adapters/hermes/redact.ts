/** Key names whose values are secrets: `api_key`, `OPENAI_API_KEY`, `token`, `client_secret`, `password`... */
const SECRET_KEY_RE = /(?:^|[_.-])(?:api[_-]?key|apikey|key|token|secret|password|passwd|credentials?)$/i;

const KEY_LINE_RE = /^(\s*(?:-\s+)?)(["']?)([^"'#:\s][^"'#:]*?)\2\s*:(?:\s+(.*))?$/;

/** True when a YAML key name looks like it holds a secret. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key.trim());
}

/**
 * Drops the values of secret-looking keys from Hermes' `config.yaml` (line-based, so
 * everything else stays byte-identical): `api_key: sk-...` becomes `api_key:`, and a
 * block (mapping, list or `|`/`>` scalar) under such a key is dropped with it.
 */
export function redactConfigYaml(text: string): string {
  const out: string[] = [];
  let blockIndent = -1;
  // Blank lines after a secret key belong to its block only when more of the block follows them:
  // held until the next line says which (the final newline too: `api_key:\n` stays as it is).
  let blanks: string[] = [];
  for (const line of text.split('\n')) {
    if (blockIndent >= 0) {
      const indent = line.length - line.trimStart().length;
      if (line.trim() === '') {
        blanks.push(line);
        continue;
      }
      if (indent > blockIndent) {
        blanks = [];
        continue;
      }
      blockIndent = -1;
      out.push(...blanks);
      blanks = [];
    }
    const m = KEY_LINE_RE.exec(line.replace(/\r$/, ''));
    if (m === null || !isSecretKey(m[3]!)) {
      out.push(line);
      continue;
    }
    const prefix = m[1]!;
    out.push(`${prefix}${m[2]}${m[3]}${m[2]}:${line.endsWith('\r') ? '\r' : ''}`);
    const value = (m[4] ?? '').trim();
    if (value === '' || value.startsWith('|') || value.startsWith('>')) blockIndent = prefix.length;
  }
  out.push(...blanks);
  return out.join('\n');
}
