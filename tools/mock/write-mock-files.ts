/**
 * Entry point of `npm run mock:generate`: rewrites the mock section of docs/mock-sandbox-msw.md and
 * client/msw/scenarios.generated.ts from the spec's scenarios.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderScenarioModule } from './scenario-module.js';
import { renderMockReadme, writeMockSection } from './scenario-table.js';
import { listScenarios } from '@session-resume-api/runtime/scenarios';

/** Files this script writes, with their renderers. */
export const mockFiles = {
  readme: fileURLToPath(new URL('../../docs/mock-sandbox-msw.md', import.meta.url)),
  mswScenarios: fileURLToPath(new URL('../../client/msw/scenarios.generated.ts', import.meta.url)),
};

const scenarios = listScenarios();
writeFileSync(mockFiles.readme, writeMockSection(readFileSync(mockFiles.readme, 'utf8'), renderMockReadme(scenarios)));
writeFileSync(mockFiles.mswScenarios, renderScenarioModule(scenarios));
console.log(`wrote ${Object.values(mockFiles).join(', ')}`);
