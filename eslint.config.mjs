// Lint rules for the whole project: typescript-eslint's recommended set plus a few rules that catch real
// defects here. The layer rules live in .dependency-cruiser.cjs; `npm run lint` runs both.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.e2e/**', '.bench/**', 'test/fixtures/**', 'coverage/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'smart'],
    },
  },
  // Ports, not globals: the core and the MCP layer get their tokenizer from the composition roots (src/cli,
  // src/vscode, src/mcp/services.ts); only they pick the shared instance. test/core/memory/tokenizerPort.test.ts
  // checks the same in `npm test`.
  {
    files: ['src/core/**/*.ts', 'src/mcp/**/*.ts'],
    ignores: ['src/core/memory/node/tokenizer.ts', 'src/mcp/services.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportSpecifier[imported.name='getTokenizer'], CallExpression[callee.name='getTokenizer']",
          message: 'Take a Tokenizer (or tokenizerFor) as a dependency; only the composition roots call getTokenizer.',
        },
      ],
    },
  },
  // Webview scripts run in the browser; UI scripts pass functions to the browser (page.evaluate).
  { files: ['media/**/*.js', 'scripts/e2e/ui-*.mjs'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['**/*.cjs', 'test/e2e/**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  // Tests and benchmarks poke at untyped JSON replies.
  { files: ['test/**', 'bench/**', 'scripts/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
