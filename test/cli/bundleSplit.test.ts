/**
 * What the stdio server bundle leaves to files of its own (esbuild.mjs): the SDK Server's ajv validator, which it
 * only needs for an elicitation's answer, sits in dist/vendor/ajv-provider.js, so a start neither reads nor (without
 * a code cache) parses its ~130 KB; the stand-in in the bundle loads it from there on first use.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCli, REPO } from '../distBuild';

describe('cli bundle: the ajv validator in a file of its own', function () {
  this.timeout(120000);
  before(async () => buildCli());

  it('dist/cli-main.js holds no ajv; dist/vendor/ajv-provider.js validates as the SDK expects', () => {
    const bundle = fs.readFileSync(path.join(REPO, 'dist/cli-main.js'), 'utf8');
    assert.doesNotMatch(bundle, /must be equal to constant/, 'ajv is not in the server bundle');
    assert.match(bundle, /"vendor","ajv-provider\.js"/, 'the stand-in loads it beside the bundle');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AjvJsonSchemaValidator } = require(path.join(REPO, 'dist/vendor/ajv-provider.js')) as {
      AjvJsonSchemaValidator: new () => { getValidator(s: object): (v: unknown) => { valid: boolean } };
    };
    const validate = new AjvJsonSchemaValidator().getValidator({ type: 'object', properties: { mail: { type: 'string', format: 'email' } }, required: ['mail'] });
    assert.equal(validate({ mail: 'a@b.example' }).valid, true);
    assert.equal(validate({ mail: 'not a mail' }).valid, false);
  });
});
