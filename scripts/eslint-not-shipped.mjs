// The lint of the code that is not shipped (server/, host/, test/, testkit/, bench/, scripts/): the JS and TypeScript
// recommended rules. Each of those folders has an eslint.config.mjs that re-exports this one; ESLint picks it up for
// the folder's files because `npm run lint` sets ESLINT_FLAGS=unstable_config_lookup_from_file (docs/development.md,
// "Linting and n8n's strict mode"). The root eslint.config.mjs stays node-cli's template, for the shipped code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config({
	files: ['**/*.ts'],
	extends: [js.configs.recommended, tseslint.configs.recommended],
	rules: { 'prefer-spread': 'off' },
});
