/** The spec scripts print no noise: no Redocly Node 20 banner, no openapi-typescript "never used" warning. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const npmRun = (script: string) => {
  const result = spawnSync('npm', ['run', '-s', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
};

describe('quiet spec scripts', () => {
  it("lint:spec passes without the Node.js 20 banner, keeping Redocly's own lines", () => {
    const { status, output } = npmRun('lint:spec');
    expect(status, output).toBe(0);
    expect(output).toContain('validating spec/openapi.yaml');
    expect(output).not.toMatch(/Node\.js 20 support is ending|╔/);
  });

  it('check:generated passes without warnings', () => {
    const { status, output } = npmRun('check:generated');
    expect(status, output).toBe(0);
    expect(output).not.toMatch(/never used|⚠/);
  });
});
