/** Entry point of `npm run mock:readme`: rewrites README-mock.md from the spec's scenarios. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMockReadme } from '../../spec/scenario-table.js';
import { listScenarios } from '../../spec/scenarios.js';

/** Path of the generated README section at the package root. */
export const mockReadmePath = fileURLToPath(new URL('../../README-mock.md', import.meta.url));

writeFileSync(mockReadmePath, renderMockReadme(listScenarios()));
console.log(`wrote ${mockReadmePath}`);
