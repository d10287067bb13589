// Runs a program with another generated/behaviour.js in place of the repository's: `node
// --import <this file>` (or NODE_OPTIONS) with BEHAVIOUR_MODULE set to the other file. Only the
// resolution of that one generated module changes (a Node module hook, node:module register);
// the program's source is read as it is, so what changes in its behaviour comes from the module.
import { register } from 'node:module';

if (process.env.BEHAVIOUR_MODULE) {
  register('./behaviour-substitute-hooks.mjs', import.meta.url, { data: { target: process.env.BEHAVIOUR_MODULE } });
}
