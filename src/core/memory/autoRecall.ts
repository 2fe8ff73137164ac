/**
 * The participant recalls by itself: when what the user asks about names a file, an identifier or an id that a
 * fingerprint of an evicted message holds, the original comes back into the prompt's external context (bounded),
 * so the model does not answer from a one-line summary of what it once read in full.
 */
import { formatReference } from './references';
import type { Fingerprint } from './types';

export interface FingerprintMatch {
  fingerprint: Fingerprint;
  score: number;
  why: string[];
}

const WORD = /[A-Za-z_$][\w$.\-/]*/g;

/** Fingerprints whose files, identifiers or id the query names, best first (newest first on ties); at most `max`. */
export function matchFingerprints(query: string, fingerprints: readonly Fingerprint[], max = 3): FingerprintMatch[] {
  const lower = query.toLowerCase();
  const words = new Set((lower.match(WORD) ?? []).map((w) => w.replace(/[.\-/]+$/, '')));
  const matches: FingerprintMatch[] = [];
  for (let i = fingerprints.length - 1; i >= 0; i--) {
    const f = fingerprints[i]!;
    const why: string[] = [];
    let score = 0;
    if (words.has(f.id.toLowerCase())) {
      score += 10;
      why.push(`id ${f.id}`);
    }
    for (const file of f.files) {
      const p = file.path.toLowerCase();
      const base = p.slice(p.lastIndexOf('/') + 1);
      if (lower.includes(p) || (base.length >= 4 && words.has(base))) {
        score += 3;
        why.push(`file ${formatReference(file)}`);
        break;
      }
    }
    for (const ident of f.identifiers) {
      if (ident.length >= 4 && words.has(ident.toLowerCase())) {
        score += 2;
        why.push(`identifier ${ident}`);
      }
    }
    // A call names the file; its result holds the text: the result is the one worth recalling.
    if (score >= 2) matches.push({ fingerprint: f, score: score + (f.kind === 'tool_result' ? 1 : 0), why });
  }
  return matches.sort((a, b) => b.score - a.score).slice(0, max);
}
