import { toolTable } from './src/mcp/tools/index';
import { toolListing } from './src/mcp/server';
import { getEncoding } from 'js-tiktoken';
const enc = getEncoding('o200k_base');
let total = 0;
for (const t of toolTable) {
  const l = toolListing(t, t.name, 'en');
  const txt = JSON.stringify({ name: l.name, description: l.description, inputSchema: l.inputSchema });
  const n = enc.encode(txt).length; total += n;
  console.log(t.name, n, enc.encode(l.description!).length, enc.encode(JSON.stringify(l.inputSchema)).length);
}
console.log('total', total);
console.log(JSON.stringify(toolListing(toolTable[4], 'be-write', 'en').inputSchema));
console.log(JSON.stringify(toolListing(toolTable[0], 'be-read', 'en').inputSchema));
