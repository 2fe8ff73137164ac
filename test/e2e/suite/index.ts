// Entry the extension host loads (extensionTestsPath): runs every *.e2e.js next to it with mocha.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60000, reporter: 'spec' });
  for (const f of fs.readdirSync(__dirname).filter((f) => f.endsWith('.e2e.js')).sort()) mocha.addFile(path.join(__dirname, f));
  return new Promise((resolve, reject) =>
    mocha.run((failures) => (failures ? reject(new Error(`${failures} e2e tests failed.`)) : resolve())),
  );
}
