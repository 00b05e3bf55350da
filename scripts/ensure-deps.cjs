#!/usr/bin/env node
// Installs dependencies with `npm ci` when node_modules is missing or package-lock.json changed
// since the last install. Runs before `npm start` and `npm test`; a no-op (a few ms) otherwise.
// Node builtins only: it has to work before anything is installed.
'use strict';

const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lockFile = path.join(root, 'package-lock.json');
const nodeModules = path.join(root, 'node_modules');
const stampFile = path.join(nodeModules, '.crm-deps-stamp');
// npm's own record of what it installed; used to adopt an install made before stamps existed.
const npmHiddenLock = path.join(nodeModules, '.package-lock.json');

function lockHash() {
  return createHash('sha256').update(fs.readFileSync(lockFile)).digest('hex');
}

function readStamp() {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * True when npm's record of what is installed (node_modules/.package-lock.json) has exactly the
 * versions package-lock.json asks for, e.g. after a plain `npm install` or `npm ci`. Optional
 * packages may be absent (other platforms).
 */
function installedMatchesLock() {
  let wanted;
  let installed;
  try {
    wanted = JSON.parse(fs.readFileSync(lockFile, 'utf8')).packages;
    installed = JSON.parse(fs.readFileSync(npmHiddenLock, 'utf8')).packages;
  } catch {
    return false;
  }
  if (!wanted || !installed) return false;
  for (const [key, meta] of Object.entries(wanted)) {
    if (!key.startsWith('node_modules/')) continue;
    const got = installed[key];
    if (!got) {
      if (meta.optional) continue;
      return false;
    }
    if (got.version !== meta.version) return false;
  }
  return Object.keys(installed).every((key) => !key.startsWith('node_modules/') || key in wanted);
}

/** Runs npm with our stdio; returns its exit status. */
function npm(args) {
  const command = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`[deps] could not run npm: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

function main() {
  if (!fs.existsSync(lockFile)) {
    console.error('[deps] package-lock.json is missing; run `npm install` once to create it.');
    process.exit(1);
  }
  const hash = lockHash();
  const stamp = readStamp();
  if (fs.existsSync(nodeModules) && stamp === hash) return;

  if (fs.existsSync(nodeModules) && installedMatchesLock()) {
    // Installed by hand (`npm install …`) and in sync with the lock: no need to reinstall.
    fs.writeFileSync(stampFile, hash + '\n');
    return;
  }

  const reason = !fs.existsSync(nodeModules)
    ? 'node_modules is missing'
    : 'package-lock.json changed since the last install';
  console.error(`[deps] ${reason}: running npm ci …`);
  if (npm(['ci', '--no-audit', '--no-fund']) !== 0) {
    // npm ci also refuses a lock that lacks optional platform packages the registry mirror does not
    // carry (e.g. @swc/core-darwin-*); npm install still installs exactly the pinned versions.
    console.error('[deps] npm ci failed; retrying with npm install (same pinned versions from package-lock.json) …');
    const before = fs.readFileSync(lockFile);
    const status = npm(['install', '--no-audit', '--no-fund']);
    if (status !== 0) {
      console.error(`[deps] npm install failed too (exit ${status}).`);
      process.exit(status || 1);
    }
    if (!before.equals(fs.readFileSync(lockFile))) {
      // The committed lock stays as it was (a fresh clone's `git status` stays clean);
      // test/infra/lockfile.test.ts fails when the lock lacks what npm ci needs.
      fs.writeFileSync(lockFile, before);
      console.error('[deps] note: npm install wanted to change package-lock.json; kept the committed one.');
    }
  }
  fs.writeFileSync(stampFile, lockHash() + '\n');
  console.error('[deps] dependencies installed.');
}

main();
