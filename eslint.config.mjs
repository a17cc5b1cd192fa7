// `n8n-node lint` runs ESLint with this file. The shipped code (index.ts, nodes/, credentials/, package.json) gets
// exactly the configuration of n8n's node-cli template (`@n8n/node-cli/eslint`, the n8n Cloud rules), narrowed
// from every `.ts` to the shipped files. The reference server, the n8n host driver, tests and benchmarks are not
// shipped and rightly use process, timers and console: they get the JS and TypeScript recommended rules only.
// Why not the template file itself (strict mode): README, "Linting and n8n's strict mode".
import js from '@eslint/js';
import { config as n8nTemplate } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const shipped = ['index.ts', 'nodes/**/*.ts', 'credentials/**/*.ts'];
const notShipped = ['server/**/*.ts', 'host/**/*.ts', 'test/**/*.ts', 'testkit/**/*.ts', 'bench/**/*.ts'];

const narrowToShipped = (block) =>
	Array.isArray(block.files) && block.files.includes('**/*.ts') ? { ...block, files: shipped } : block;

export default tseslint.config(
	globalIgnores(['dist', 'dist-bench', 'node_modules', 'coverage', '.n8n-host']),
	...n8nTemplate.map(narrowToShipped),
	{
		files: notShipped,
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: { 'prefer-spread': 'off' },
	},
);
