/**
 * Setup of the unit tier: opening a socket, listening or starting a child process throws, so a
 * test that needs them cannot sit in test/unit by mistake (it belongs in test/integration).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const refuse = (what: string) => () => {
  throw new Error(`the unit tier runs without ${what}: move this test to test/integration/`);
};

net.Socket.prototype.connect = refuse('sockets') as never;
net.Server.prototype.listen = refuse('servers') as never;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as Record<string, unknown>)[name] = refuse('child processes');
}
// Named ESM imports of built-ins (import { spawn } from 'node:child_process') see the patch too.
syncBuiltinESMExports();
