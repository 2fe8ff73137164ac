/**
 * Extracts a .vsix (a zip written by vsce) into a folder. A zip's central directory and deflate are all a
 * .vsix uses, and node:zlib inflates: 30 lines instead of a dependency. Entry names are checked so nothing
 * lands outside `dest`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';

export function unzip(zipFile: string, dest: string): string[] {
  const zip = fs.readFileSync(zipFile);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error(`${zipFile} is not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i} in ${zipFile}`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    at += 46 + nameLen + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const out = path.resolve(dest, name);
    if (!out.startsWith(path.resolve(dest) + path.sep)) throw new Error(`zip entry ${name} points outside ${dest}`);
    if (name.endsWith('/')) continue;
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(data, data + size);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name}: compression method ${method} is not supported`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, method === 8 ? inflateRawSync(raw) : raw);
    names.push(name);
  }
  return names;
}
