import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from './content-disposition';

/** The header's parameters as RFC 6266 reads them: `filename` a quoted-string, `filename*` an RFC 8187 ext-value. */
function parse(header: string): { filename: string; filenameStar: string | null } {
  const match = /^attachment; filename="([^"\\\x00-\x1f\x7f]*)"(?:; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]+))?$/.exec(header);
  if (!match) throw new Error(`not a well-formed Content-Disposition: ${JSON.stringify(header)}`);
  return { filename: match[1]!, filenameStar: match[2] === undefined ? null : decodeURIComponent(match[2]) };
}

describe('the download\'s Content-Disposition', () => {
  it('keeps a plain ASCII name as it was: one quoted filename', () => {
    expect(attachmentDisposition('Vega', '-seq2.tar.gz')).toBe('attachment; filename="Vega-seq2.tar.gz"');
  });

  it('names a download after a name in any script (filename*), with an ASCII fallback', () => {
    expect(parse(attachmentDisposition('Вега', '-seq3.zip'))).toEqual({ filename: 'agent-seq3.zip', filenameStar: 'Вега-seq3.zip' });
    expect(parse(attachmentDisposition('Café ops', '-seq3.zip'))).toEqual({ filename: 'Cafe-ops-seq3.zip', filenameStar: 'Café ops-seq3.zip' });
    expect(parse(attachmentDisposition('エージェント', '-seq0.alf')).filenameStar).toBe('エージェント-seq0.alf');
  });

  it('is one well-formed header value whatever the name: quotes, line breaks, bidi overrides, path characters, lone surrogates', () => {
    const odd = ['evil"\r\nSet-Cookie: x=1', 'inv\u202Efdp.exe', '..', '\ud800x', "O'Brien (x)*", 'a/b\\c', '   ', '😀', 'zero\u200bwidth', '%41', 'n'.repeat(256)];
    for (const name of odd) {
      const header = attachmentDisposition(name, '-seq3.zip');
      const { filename, filenameStar } = parse(header);
      expect(() => new Headers({ 'content-disposition': header }), JSON.stringify(name)).not.toThrow();
      for (const shown of [filename, filenameStar ?? filename]) {
        expect(shown, JSON.stringify(name)).toMatch(/-seq3\.zip$/);
        expect(shown, JSON.stringify(name)).not.toMatch(/[\p{Cc}\p{Cf}\\/"]|^\./u);
      }
    }
    expect(parse(attachmentDisposition('%41', '-seq3.zip')).filenameStar ?? '%41-seq3.zip').toBe('%41-seq3.zip');
  });
});
