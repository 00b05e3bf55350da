import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../infra/paths';
import { CRM_SEARCH_ATTRIBUTE_NAMES } from '../../infra/search-attributes';

const composeFile = path.join(repoRoot, 'docker-compose.yml');
const baseEnv: NodeJS.ProcessEnv = { ...process.env, MEILI_MASTER_KEY: 'compose-test-key-0123456789abcdef' };

function compose(args: string[], env: NodeJS.ProcessEnv = baseEnv): SpawnSyncReturns<string> {
  const result = spawnSync('docker-compose', ['-f', composeFile, ...args], { cwd: repoRoot, env, encoding: 'utf8' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(
      'docker-compose is not installed, so docker-compose.yml cannot be validated. Install it ' +
        '(Debian/Ubuntu: `apt-get install docker-compose`); `npm test` does that by itself when run as root.',
    );
  }
  return result;
}

describe('docker-compose.yml', () => {
  it('is a valid compose file (docker-compose config -q)', () => {
    const result = compose(['config', '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('declares the production topology', () => {
    const result = compose(['config', '--services']);
    expect(result.status).toBe(0);
    const services = result.stdout.split('\n').filter(Boolean);
    expect(services).toEqual(
      expect.arrayContaining([
        'postgres',
        'temporal',
        'temporal-setup',
        'temporal-ui',
        'meilisearch',
        'migrate',
        'api',
        'worker',
      ]),
    );
  });

  it('starts api and worker only after migrations and search-attribute setup succeeded', () => {
    const result = compose(['config']);
    expect(result.status).toBe(0);
    expect(result.stdout.match(/condition: service_completed_successfully/g)?.length).toBeGreaterThanOrEqual(4);
    expect(result.stdout).toContain('/readyz');
  });

  it('lets api and worker scale out (no fixed container names)', () => {
    expect(fs.readFileSync(composeFile, 'utf8')).not.toMatch(/^\s*container_name:/m);
  });

  it('registers every CRM search attribute in temporal-setup', () => {
    const text = fs.readFileSync(composeFile, 'utf8');
    const loop = /for attribute in ([^;]+);/.exec(text);
    expect(loop?.[1].trim().split(/\s+/)).toEqual([...CRM_SEARCH_ATTRIBUTE_NAMES]);
  });

  it('refuses to run without MEILI_MASTER_KEY', () => {
    const env = { ...baseEnv };
    delete env.MEILI_MASTER_KEY;
    const result = compose(['config', '-q'], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('MEILI_MASTER_KEY');
  });
});
