/**
 * `--encoding GLOB=NAME` rules: the configured encoding of the files a glob matches (gitignore-style globs, relative
 * to the root, as `ignore` matches them: `*.c` anywhere, `legacy/**` under a folder). The last matching rule wins.
 */
import ignore from 'ignore';
import { normalizeEncoding, SUPPORTED_ENCODINGS } from '../text/encoding';

export interface EncodingRule {
  glob: string;
  encoding: string;
}

/** Throws a message for the command line when the rule is malformed or the encoding unknown. */
export function parseEncodingRule(spec: string): EncodingRule {
  const eq = spec.lastIndexOf('=');
  const glob = eq > 0 ? spec.slice(0, eq).trim() : '';
  const name = eq > 0 ? spec.slice(eq + 1).trim() : '';
  if (!glob || !name) throw new Error(`--encoding expects GLOB=NAME, e.g. "**/*.c=gbk", got "${spec}"`);
  const encoding = normalizeEncoding(name);
  if (!encoding) throw new Error(`--encoding: unknown encoding "${name}"; supported: ${SUPPORTED_ENCODINGS.join(', ')}`);
  return { glob, encoding };
}

/** A resolver over root-relative paths (`relative` turns an absolute path into one, or undefined outside the roots). */
export function encodingRulesResolver(rules: readonly EncodingRule[], relative: (abs: string) => string | undefined): (abs: string) => string | undefined {
  if (rules.length === 0) return () => undefined;
  const matchers = rules.map((r) => ({ m: ignore().add(r.glob), encoding: r.encoding }));
  return (abs) => {
    const rel = relative(abs);
    if (!rel) return undefined;
    let found: string | undefined;
    for (const { m, encoding } of matchers) if (m.ignores(rel)) found = encoding;
    return found;
  };
}
