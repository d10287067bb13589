/** Entry point of `npm run docs`: writes dist/docs/index.html (or the path given as first argument). */
import { buildDocs } from './build-docs.js';

const output = await buildDocs(process.argv[2] ? { outputPath: process.argv[2] } : {});
console.log(`wrote ${output}`);
