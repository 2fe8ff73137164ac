/**
 * The Porter2 (English Snowball) stemmer, so that "recovering" and "recovery", "merging" and "merge" meet.
 * No stemmer package is installed and the algorithm is small; this follows the published description
 * (snowballstem.org/algorithms/english/stemmer.html) step by step, names as there.
 */

const VOWEL = /[aeiouy]/;
const DOUBLE = /(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/;
const LI_ENDING = /[cdeghkmnrt]/;

// A Map, not an object literal: `constructor` or `toString` must not find Object's members.
const EXCEPTIONS = new Map<string, string>(Object.entries({
  skis: 'ski', skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie', idly: 'idl', gently: 'gentl', ugly: 'ugli',
  early: 'earli', only: 'onli', singly: 'singl', sky: 'sky', news: 'news', howe: 'howe', atlas: 'atlas',
  cosmos: 'cosmos', bias: 'bias', andes: 'andes',
}));
const AFTER_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

const isVowel = (c: string | undefined) => c !== undefined && VOWEL.test(c);

/** Start of the region after the first non-vowel that follows a vowel, from `from`. */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

/** A short syllable ends at `end` (exclusive). */
function shortSyllableAt(w: string, end: number): boolean {
  if (end === 2) return isVowel(w[0]) && !isVowel(w[1]);
  const [a, b, c] = [w[end - 3], w[end - 2], w[end - 1]];
  return end >= 3 && !isVowel(a) && isVowel(b) && !isVowel(c) && c !== 'w' && c !== 'x' && c !== 'Y';
}

export function stem(input: string): string {
  let w = input.toLowerCase();
  if (w.length <= 2 || !/^[a-z']+$/.test(w)) return w;
  if (w.startsWith("'")) w = w.slice(1);
  const exception = EXCEPTIONS.get(w);
  if (exception) return exception;
  // y as a consonant: at the start or after a vowel
  if (w[0] === 'y') w = 'Y' + w.slice(1);
  w = w.replace(/([aeiouy])y/g, '$1Y');

  const prefix = /^(gener|commun|arsen)/.exec(w);
  const r1 = prefix ? prefix[0].length : regionAfter(w, 0);
  const r2 = regionAfter(w, r1);
  const inR1 = (suffixLen: number) => w.length - suffixLen >= r1;
  const inR2 = (suffixLen: number) => w.length - suffixLen >= r2;
  const ends = (s: string) => w.endsWith(s);
  const cut = (n: number) => (w = w.slice(0, w.length - n));
  const isShort = () => r1 >= w.length && shortSyllableAt(w, w.length);

  // Step 0
  for (const s of ["'s'", "'s", "'"]) if (ends(s)) { cut(s.length); break; }

  // Step 1a
  if (ends('sses')) cut(2);
  else if (ends('ied') || ends('ies')) w = w.slice(0, -3) + (w.length > 4 ? 'i' : 'ie');
  else if (ends('us') || ends('ss')) { /* unchanged */ }
  else if (ends('s') && VOWEL.test(w.slice(0, -2))) cut(1);
  if (AFTER_1A.has(w)) return w;

  // Step 1b
  const m1b = /(eedly|eed|ingly|edly|ing|ed)$/.exec(w);
  if (m1b) {
    const s = m1b[1]!;
    if (s === 'eed' || s === 'eedly') {
      if (inR1(s.length)) w = w.slice(0, -s.length) + 'ee';
    } else if (VOWEL.test(w.slice(0, -s.length))) {
      cut(s.length);
      if (ends('at') || ends('bl') || ends('iz')) w += 'e';
      else if (DOUBLE.test(w)) cut(1);
      else if (isShort()) w += 'e';
    }
  }

  // Step 1c
  if (w.length > 2 && /[yY]$/.test(w) && !isVowel(w[w.length - 2])) w = w.slice(0, -1) + 'i';

  // Step 2
  const step2: [string, string][] = [
    ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['abli', 'able'], ['entli', 'ent'],
    ['ization', 'ize'], ['izer', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['aliti', 'al'], ['alli', 'al'],
    ['fulness', 'ful'], ['ousness', 'ous'], ['ousli', 'ous'], ['iveness', 'ive'], ['iviti', 'ive'], ['biliti', 'ble'],
    ['bli', 'ble'], ['fulli', 'ful'], ['lessli', 'less'], ['ogi', 'og'], ['li', ''],
  ];
  const s2 = longest(w, step2.map((x) => x[0]));
  if (s2 && inR1(s2.length)) {
    if (s2 === 'ogi') { if (w[w.length - 4] === 'l') w = w.slice(0, -1); }
    else if (s2 === 'li') { if (LI_ENDING.test(w[w.length - 3] ?? '')) cut(2); }
    else w = w.slice(0, -s2.length) + step2.find((x) => x[0] === s2)![1];
  }

  // Step 3
  const step3: [string, string][] = [
    ['ational', 'ate'], ['tional', 'tion'], ['alize', 'al'], ['icate', 'ic'], ['iciti', 'ic'], ['ical', 'ic'],
    ['ful', ''], ['ness', ''], ['ative', ''],
  ];
  const s3 = longest(w, step3.map((x) => x[0]));
  if (s3 && inR1(s3.length) && (s3 !== 'ative' || inR2(5))) w = w.slice(0, -s3.length) + step3.find((x) => x[0] === s3)![1];

  // Step 4
  const step4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'];
  const s4 = longest(w, step4);
  if (s4 && inR2(s4.length)) {
    if (s4 !== 'ion') cut(s4.length);
    else if (/[st]$/.test(w.slice(0, -3))) cut(3);
  }

  // Step 5
  if (ends('e')) {
    if (inR2(1) || (inR1(1) && !shortSyllableAt(w, w.length - 1))) cut(1);
  } else if (ends('ll') && inR2(1)) cut(1);

  return w.replace(/Y/g, 'y');
}

/** The longest of `suffixes` the word ends with (Snowball's "longest among"). */
function longest(w: string, suffixes: string[]): string | undefined {
  let best: string | undefined;
  for (const s of suffixes) if (w.endsWith(s) && (!best || s.length > best.length)) best = s;
  return best;
}
