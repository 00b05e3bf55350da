import { spawnSync } from 'node:child_process';
import type { LogFn } from './log';

export const DOCKER_COMPOSE_BIN = 'docker-compose';

export function hasDockerCompose(): boolean {
  const result = spawnSync(DOCKER_COMPOSE_BIN, ['version'], { stdio: 'ignore' });
  return result.status === 0;
}

/**
 * The compose validation test needs the `docker-compose` binary (no Docker engine: `config` does
 * not talk to one). Installs Debian's package when missing and we are root; never fatal.
 */
export function ensureDockerCompose(log: LogFn): boolean {
  if (hasDockerCompose()) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    log(
      'docker-compose is not installed and cannot be installed here (needs root and apt-get); the compose test will fail.',
    );
    log('Install it with your package manager (Debian/Ubuntu: apt-get install docker-compose).');
    return false;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Output of apt goes to stderr: stdout belongs to the test runner.
  const run = (args: string[]): boolean => {
    log(`$ apt-get ${args.join(' ')}`);
    return spawnSync('apt-get', args, { env, stdio: ['ignore', 2, 2] }).status === 0;
  };
  log('docker-compose is not installed: installing the Debian package (needed by test/infra/compose.test.ts)…');
  const ok =
    run(['update']) &&
    run(['install', '-y', '-qq', '--no-install-recommends', '-o', 'Dpkg::Options::=--force-confold', 'docker-compose']);
  if (!ok || !hasDockerCompose()) {
    log('installing docker-compose failed; the compose test will fail.');
    return false;
  }
  log('docker-compose installed.');
  return true;
}
