/**
 * Serves the example page for a person to try (in this repository):
 *   npm run sandbox                                   # prints a key, listens on :3100
 *   node --conditions=source --import tsx examples/frontend-e2e/serve.ts
 * then open the printed URL. PAGE_PORT (default 5173), API_URL (default http://127.0.0.1:3100).
 */
import { startPageServer } from './page-server.js';

const page = await startPageServer(Number(process.env.PAGE_PORT ?? 5173));
const api = process.env.API_URL ?? 'http://127.0.0.1:3100';
const key = `sandbox_${crypto.randomUUID()}`;
console.log(`Open ${page.origin}/?api=${encodeURIComponent(api)}&key=${key}`);
