#!/usr/bin/env node
// The `session-resume-api` command. A committed launcher, so that npm links it at install even
// in a fresh clone, where dist/ is built afterwards by the `prepare` script.
import '../dist/main.js';
