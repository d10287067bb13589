/**
 * Entry point of `npm run mock`: runs Prism (`prism mock spec/openapi.yaml`) on PORT
 * (default 4010), prints how to use it once Prism listens, and forwards SIGINT/SIGTERM. A busy
 * port is refused first, in one line naming PORT.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { specPath } from '@session-resume-api/runtime/contract';
import { listScenarios } from '@session-resume-api/runtime/scenarios';
import { readMockConfig } from './mock-config.js';
import { renderMockUsage } from './mock-usage.js';
import { busyPortMessage } from './port-check.js';

const prismBin = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));

let config;
try {
  config = readMockConfig(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const busy = await busyPortMessage(config.host, config.port);
if (busy) {
  console.error(busy);
  process.exit(1);
}
const baseUrl = `http://${config.host}:${config.port}`;
const usage = renderMockUsage(baseUrl, listScenarios());

const prism = spawn(prismBin, ['mock', specPath, '--host', config.host, '--port', String(config.port)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let printed = false;
prism.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (!printed && chunk.toString().includes('Prism is listening')) {
    printed = true;
    process.stdout.write(usage);
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => prism.kill(signal));
}
prism.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
