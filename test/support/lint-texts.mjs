// Lints texts as if they stood at the given paths of this project, with the project's own
// eslint.config.mjs, and prints each one's import-rule messages as JSON. Run in a child process
// (ESLint loads its config as an ES module). Type information is off: the import rules need none.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { ESLint } from 'eslint';

const fixtures = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [
    { languageOptions: { parserOptions: { projectService: false, project: null } } },
  ],
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});
const results = [];
for (const fixture of fixtures) {
  const [result] = await eslint.lintText(fixture.code, { filePath: fixture.filePath });
  results.push(result.messages.map((message) => message.message));
}
process.stdout.write(JSON.stringify(results));
