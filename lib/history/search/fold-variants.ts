/**
 * The characters that fold to a given folded character, for the short-word prefilter
 * (`instr` on each variant): the character, its uppercase, and the few others case folding joins
 * to it (EXTRA, checked complete against `foldChar` by fold.test.ts).
 */
const EXTRA_PAIRS = 'µμ ſs ǅǆ ǈǉ ǋǌ ǲǳ \u0345ι ςσ ϐβ ϑθ ϕφ ϖπ ϰκ ϱρ ϴθ ϵε ẛṡ ẞß ᾈᾀ ᾉᾁ ᾊᾂ ᾋᾃ ᾌᾄ ᾍᾅ ᾎᾆ ᾏᾇ ᾘᾐ ᾙᾑ ᾚᾒ ᾛᾓ ᾜᾔ ᾝᾕ ᾞᾖ ᾟᾗ ᾨᾠ ᾩᾡ ᾪᾢ ᾫᾣ ᾬᾤ ᾭᾥ ᾮᾦ ᾯᾧ ᾼᾳ \u1fbeι ῌῃ ῼῳ \u2126ω \u212ak \u212bå';

const EXTRA = new Map<string, string[]>();
for (const pair of EXTRA_PAIRS.split(' ')) {
  const [from, to] = [...pair] as [string, string];
  EXTRA.set(to, [...(EXTRA.get(to) ?? []), from]);
}

export function variantsOf(folded: string): string[] {
  const out = [folded];
  const upper = folded.toUpperCase();
  if (upper.length === folded.length && upper !== folded) out.push(upper);
  return [...out, ...(EXTRA.get(folded) ?? [])];
}
