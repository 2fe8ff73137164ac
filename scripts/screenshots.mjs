// `npm run screenshots`: refreshes media/screenshots/ (the README's pictures), the only thing that writes there.
// Runs the e2e stage (scripts/e2e/ci-e2e.sh), whose UI layer saves its screenshots under .e2e/screenshots/, then
// copies them over. A failed run leaves media/screenshots/ as it was.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shots = path.join(root, '.e2e', 'screenshots');
const media = path.join(root, 'media', 'screenshots');

rmSync(shots, { recursive: true, force: true }); // no picture from an earlier run slips in
const run = spawnSync('bash', [path.join(root, 'scripts', 'e2e', 'ci-e2e.sh')], { cwd: root, stdio: 'inherit', env: { ...process.env, SHOTS_DIR: shots } });
if (run.status !== 0) {
  console.error(`[screenshots] the e2e stage exited ${run.status ?? run.signal}; media/screenshots/ is unchanged`);
  process.exit(run.status || 1);
}
const pictures = existsSync(shots) ? readdirSync(shots).filter((f) => f.endsWith('.png') && !f.endsWith('-fail.png') && f !== 'ui-fail.png') : [];
if (pictures.length === 0) {
  console.error(`[screenshots] the e2e stage passed but left no screenshots in ${shots}`);
  process.exit(1);
}
mkdirSync(media, { recursive: true });
for (const f of pictures) copyFileSync(path.join(shots, f), path.join(media, f));
console.log(`[screenshots] ${pictures.length} screenshots copied to media/screenshots/: ${pictures.sort().join(', ')}`);
