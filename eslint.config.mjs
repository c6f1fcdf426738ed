import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'plugin/localagents.mjs', 'plugin/stdio-hold.mjs', 'node_modules/**', 'coverage/**', 'test-output/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  // The few CommonJS files (src/main.cts and what it loads at start) import with require().
  { files: ['**/*.cts'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['src/**/*.ts', 'src/**/*.cts'],
    ignores: ['src/cli/output.ts'],
    // stdout belongs to the MCP stdio transport.
    rules: { 'no-console': 'error' },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
