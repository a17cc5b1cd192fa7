// Copies the SVG icons and the codex (.node.json) files beside the compiled nodes and credentials,
// where n8n looks for them.
const { src, dest, task } = require('gulp');

function buildIcons() {
	return src(['nodes/**/*.svg', 'nodes/**/*.node.json', 'credentials/**/*.svg'], { base: '.', encoding: false }).pipe(dest('dist'));
}

task('build:icons', buildIcons);
