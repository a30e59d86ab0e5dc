import type { LayoutWord } from './text.js';

/**
 * The word rules of `extraction.words` applied to pdftotext's words (which it separates by spacing
 * only, so "end.Next" or "e-mail" arrive as one word):
 *
 * - `delimitAfterPunctuation`: a word also ends after a punctuation mark that is followed by more
 *   characters ("end.Next" → "end." "Next"); opening brackets and quotes belong to what follows,
 *   and dashes and connectors ("PAGE-1", "e-mail", "snake_case") do not end a word.
 * - `extendedSequenceCharacters`: connectors between letters or digits ("e-mail", "don't", "3.14",
 *   "a_b", "name@host", "and/or") join a sequence instead of ending or being punctuation.
 * - `removePunctuation`: punctuation marks are dropped from the words; words of nothing but
 *   punctuation disappear.
 *
 * pdftotext reports a box per word, not per character, so the box of a part of a word is its share
 * of the word's box by character count (exact for monospaced text, close for the rest).
 */
export interface WordRules {
  delimitAfterPunctuation: boolean;
  removePunctuation: boolean;
  extendedSequenceCharacters: boolean;
}

const PUNCTUATION = /\p{P}/u;
const OPENING = /[\p{Ps}\p{Pi}]/u;
/** Punctuation after which a word does not end: dashes and connectors. */
const BINDING = /[\p{Pd}\p{Pc}]/u;
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;
const CONNECTORS = new Set(['-', '\u2010', '\u2011', "'", '\u2019', '_', '.', ',', ':', '/', '@', '&']);

export function applyWordRules(word: LayoutWord, rules: WordRules): LayoutWord[] {
  const characters = [...word.text];
  if (characters.length === 0) return [];
  // Which characters are connectors inside a sequence (kept as word characters).
  const joins = characters.map(
    (c, i) => rules.extendedSequenceCharacters && CONNECTORS.has(c) && i > 0 && i < characters.length - 1 && WORD_CHARACTER.test(characters[i - 1]!) && WORD_CHARACTER.test(characters[i + 1]!),
  );
  const punctuation = characters.map((c, i) => PUNCTUATION.test(c) && !joins[i]);

  // Cut points: after closing punctuation that is followed by a character which is not itself punctuation.
  const parts: { start: number; end: number }[] = [];
  let start = 0;
  if (rules.delimitAfterPunctuation) {
    for (let i = 0; i < characters.length - 1; i++) {
      if (punctuation[i] && !punctuation[i + 1] && !OPENING.test(characters[i]!) && !BINDING.test(characters[i]!)) {
        parts.push({ start, end: i + 1 });
        start = i + 1;
      } else if (!punctuation[i] && punctuation[i + 1] && OPENING.test(characters[i + 1]!)) {
        // "word(aside": the opening bracket starts the next word.
        parts.push({ start, end: i + 1 });
        start = i + 1;
      }
    }
  }
  parts.push({ start, end: characters.length });

  const out: LayoutWord[] = [];
  const share = word.width / characters.length;
  for (const part of parts) {
    let text = '';
    for (let i = part.start; i < part.end; i++) if (!(rules.removePunctuation && punctuation[i])) text += characters[i];
    if (text === '') continue;
    out.push({
      text,
      x: round3(word.x + share * part.start),
      y: word.y,
      width: round3(share * (part.end - part.start)),
      height: word.height,
    });
  }
  return out;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
