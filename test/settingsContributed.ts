/** package.json's contributes.configuration checked against a settings table (src/core/util/settingTable.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { SettingLimit } from '../src/core/util/settingTable';

interface Contributed {
  type: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  enum?: unknown[];
}

const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
const props = pkg.contributes.configuration.properties as Record<string, Contributed>;

/** What package.json should say for a table entry. */
function contributedFor(l: SettingLimit): Contributed {
  switch (l.type) {
    case 'number':
      return { type: l.integer ? 'integer' : 'number', minimum: l.min, maximum: l.max, default: l.default };
    case 'choice':
      return { type: 'string', enum: [...l.values], default: l.default };
    case 'boolean':
      return { type: 'boolean', default: l.default };
  }
}

/** package.json contributes exactly the table's settings under `prefix`, each with its type, bounds or values, and default. */
export function assertContributedAsTable(prefix: string, table: Record<string, SettingLimit>): void {
  const keys = Object.keys(table);
  const contributed = Object.keys(props).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  assert.deepEqual(contributed.sort(), [...keys].sort(), `the ${prefix}* settings of package.json and of the table`);
  for (const key of keys) {
    const p = props[prefix + key]!;
    const want = contributedFor(table[key]!);
    const have = Object.fromEntries(Object.keys(want).map((f) => [f, p[f as keyof Contributed]]));
    assert.deepEqual(have, want, key);
    // No bound of another kind (a minimum on a string, an enum on a number) that the table does not know.
    for (const f of ['minimum', 'maximum', 'enum'] as const) if (!(f in want)) assert.equal(p[f], undefined, `${key}.${f}`);
  }
}
